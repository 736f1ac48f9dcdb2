/** A JSON value: what logged state and checkpoints may hold. */
export type Json = null | boolean | number | string | readonly Json[] | { readonly [key: string]: Json };

/** True when `value` survives a JSON round trip unchanged in meaning (no undefined, functions, bigints, NaN). */
export function isJson(value: unknown): value is Json {
  if (value === null || typeof value === "boolean" || typeof value === "string") return true;
  if (typeof value === "number") return Number.isFinite(value);
  if (Array.isArray(value)) return value.every(isJson);
  if (typeof value === "object") {
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) return false;
    return Object.values(value as object).every(isJson);
  }
  return false;
}
