import type { ColumnVector } from "@sqlload/core";

/** The column's values times 10^scale (ColumnVector.scaled), or undefined when one is no exact integer under 2^53 there. */
export function scaledColumn(column: ColumnVector, n: number, scale: number): Float64Array | undefined {
  const out = new Float64Array(n);
  for (let r = 0; r < n; r++) {
    if (column.nulls?.[r] === 1) {
      out[r] = Number.NaN;
      continue;
    }
    const value = exactScaled(String(column.values[r]), scale);
    if (value === undefined) return undefined;
    out[r] = value;
  }
  return out;
}

function exactScaled(text: string, scale: number): number | undefined {
  const parts = /^([+-]?)(\d*)(?:\.(\d*))?$/.exec(text.trim());
  if (!parts || (!parts[2] && !parts[3])) return undefined;
  const fraction = parts[3] ?? "";
  if (/[1-9]/.test(fraction.slice(scale))) return undefined;
  const scaled = BigInt(`${parts[2] || "0"}${fraction.slice(0, scale).padEnd(scale, "0")}`);
  if (scaled >= 2n ** 53n) return undefined;
  return parts[1] === "-" ? -Number(scaled) : Number(scaled);
}
