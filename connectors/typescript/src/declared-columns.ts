import { type Column, type LogicalType, parseLogicalType, SqlloadError } from "@sqlload/core";

/** Parses `columns: { id: "bigint not null", at: "timestamp" }` into the table's schema. */
export function declaredColumns(columns: Readonly<Record<string, string>>, table: string): Column[] {
  return Object.entries(columns).map(([name, text]) => {
    const notNull = /\s+not\s+null\s*$/i.test(text);
    const typeText = text.replace(/\s+not\s+null\s*$/i, "");
    const type = parseLogicalType(typeText);
    if (!type) {
      throw new SqlloadError("SL103", `table ${table}: column "${name}" has unknown type ${JSON.stringify(text)}`, {
        hint: "Use bigint, integer, smallint, double, real, decimal(p,s), boolean, text, bytes, uuid, json, date, time, timestamp, timestamptz, or T[] / list<T>; add `not null` to forbid NULLs.",
      });
    }
    return { name, type, nullable: !notNull };
  });
}

/**
 * Infers columns from the first rows when a table declares none: a bigint first, or whole numbers
 * only, as int64; other numbers as float64, Dates as timestamptz, objects as json. A column
 * that is NULL in every sampled row is text.
 */
export function inferColumns(rows: readonly Record<string, unknown>[]): Column[] {
  const names: string[] = [];
  const seen = new Set<string>();
  for (const row of rows) {
    for (const key of Object.keys(row)) {
      if (!seen.has(key)) {
        seen.add(key);
        names.push(key);
      }
    }
  }
  return names.map((name) => ({ name, type: inferType(rows.map((r) => r[name])), nullable: true }));
}

function inferType(values: readonly unknown[]): LogicalType {
  const present = values.filter((v) => v !== null && v !== undefined);
  if (present.length === 0) return { kind: "text" };
  const first = present[0];
  if (typeof first === "boolean") return { kind: "boolean" };
  if (typeof first === "bigint") return { kind: "int64" };
  // A bigint after a number keeps the column a double, as tables made before have it: one a double
  // would round is then refused (SL300), not stored rounded.
  if (typeof first === "number")
    return present.every((v) => typeof v === "number" && Number.isSafeInteger(v)) ? { kind: "int64" } : { kind: "float64" };
  if (first instanceof Date) return { kind: "timestamptz" };
  if (first instanceof Uint8Array) return { kind: "bytes" };
  if (typeof first === "object") return { kind: "json" };
  return { kind: "text" };
}
