import type { Column, LogicalType } from "../connector/logical-types.js";
import { formatLogicalType } from "../connector/logical-types.js";
import { SqlloadError } from "../errors/sqlload-error.js";

/**
 * How a target column of type `target` meets a source column now of type `source`:
 * `same`; `fits` (the column holds the new values as it is: int32 into int64, decimal into text);
 * `widen` (the column must change type, and its values convert without loss: int32 → int64,
 * decimal precision or scale up, float32 → float64, date → timestamp); `lossy` (narrowing, text →
 * number); `unknown` for types whose fit only the target can judge (its own SL302 then applies).
 */
export type TypeChange = "same" | "fits" | "widen" | "lossy" | "unknown";

const INTEGER_DIGITS: Partial<Record<string, number>> = { int16: 5, int32: 10, int64: 19 };
const COMPARABLE = new Set([
  "int16",
  "int32",
  "int64",
  "float32",
  "float64",
  "decimal",
  "text",
  "date",
  "timestamp",
  "timestamptz",
]);

export function typeChange(target: LogicalType, source: LogicalType): TypeChange {
  if (formatLogicalType(target) === formatLogicalType(source)) return "same";
  if (holds(target, source)) return "fits";
  if (holds(source, target)) return "widen";
  if (!COMPARABLE.has(target.kind) || !COMPARABLE.has(source.kind)) return "unknown";
  return "lossy";
}

/** Whether every value of type `inner` converts to type `outer` without loss. */
export function holds(outer: LogicalType, inner: LogicalType): boolean {
  if (formatLogicalType(outer) === formatLogicalType(inner)) return true;
  const innerDigits = INTEGER_DIGITS[inner.kind];
  const outerDigits = INTEGER_DIGITS[outer.kind];
  if (innerDigits !== undefined && outerDigits !== undefined) return innerDigits <= outerDigits;
  if (innerDigits !== undefined && outer.kind === "decimal") return outer.precision - outer.scale >= innerDigits;
  if (inner.kind === "decimal" && outer.kind === "decimal") {
    return outer.scale >= inner.scale && outer.precision - outer.scale >= inner.precision - inner.scale;
  }
  if (inner.kind === "float32") return outer.kind === "float64";
  if (outer.kind === "text") return inner.kind === "decimal" || inner.kind === "uuid" || inner.kind === "json";
  if (inner.kind === "date") return outer.kind === "timestamp" || outer.kind === "timestamptz";
  if (inner.kind === "timestamp" || inner.kind === "timestamptz")
    return outer.kind === "timestamp" || outer.kind === "timestamptz";
  if (inner.kind === "list" && outer.kind === "list") return holds(outer.element, inner.element);
  return false;
}

/** What a load will change in an existing target table's columns, before it loads. */
export interface SchemaChange {
  readonly added: readonly Column[];
  readonly widened: readonly { readonly column: string; readonly from: LogicalType; readonly to: LogicalType }[];
  /** Target columns the source no longer has: they stay, NULL for new rows. */
  readonly dropped: readonly string[];
  readonly lossy: readonly { readonly column: string; readonly from: LogicalType; readonly to: LogicalType }[];
}

/** Compares the target table's columns with the source's (those the table reads); undefined when either is unknown. */
export function schemaChange(
  target: readonly Column[] | undefined,
  source: readonly Column[] | undefined,
): SchemaChange | undefined {
  if (!target || !source) return undefined;
  const added: Column[] = [];
  const widened: SchemaChange["widened"][number][] = [];
  const lossy: SchemaChange["lossy"][number][] = [];
  for (const column of source) {
    const existing = target.find((c) => c.name === column.name);
    if (!existing) {
      added.push(column);
      continue;
    }
    const change = typeChange(existing.type, column.type);
    if (change === "widen") widened.push({ column: column.name, from: existing.type, to: column.type });
    if (change === "lossy") lossy.push({ column: column.name, from: existing.type, to: column.type });
  }
  const dropped = target.filter((c) => !source.some((s) => s.name === c.name)).map((c) => c.name);
  return { added, widened, dropped, lossy };
}

export function isEmptyChange(change: SchemaChange): boolean {
  return change.added.length + change.widened.length + change.dropped.length + change.lossy.length === 0;
}

/** The lines `plan` shows for a change, one per column. */
export function schemaChangeNotes(change: SchemaChange): string[] {
  return [
    ...change.added.map((c) => `schema: adds column ${c.name} (${formatLogicalType(c.type)})`),
    ...change.widened.map((w) => `schema: widens ${w.column} from ${formatLogicalType(w.from)} to ${formatLogicalType(w.to)}`),
    ...change.dropped.map((name) => `schema: the source no longer has ${name}; it stays in the target, NULL for new rows`),
  ];
}

/**
 * Refuses, before anything changes, what a load cannot apply: a lossy change always; any change
 * under `on_schema_change = "fail"`. A table being rebuilt (`--reload`, `replace`) takes any schema.
 */
export function checkSchemaChange(change: SchemaChange, table: string, onSchemaChange: "evolve" | "fail"): void {
  const lossy = change.lossy[0];
  if (lossy) {
    throw new SqlloadError(
      "SL312",
      `table ${table} column "${lossy.column}" changed type from ${formatLogicalType(lossy.from)} to ${formatLogicalType(lossy.to)} in the source, which the target cannot take without losing data; nothing was changed`,
      { table, hint: `Rebuild the table with the new type: \`sqlload load ${table.split(".").pop()} --reload\`.` },
    );
  }
  if (onSchemaChange === "fail" && !isEmptyChange(change)) {
    throw new SqlloadError(
      "SL313",
      `table ${table} sets on_schema_change = "fail" and its source changed: ${schemaChangeNotes(change)
        .map((n) => n.replace("schema: ", ""))
        .join("; ")}; nothing was changed`,
      {
        table,
        hint: 'Update the contract and set on_schema_change = "evolve" for a run, or rebuild with `--reload`.',
      },
    );
  }
}
