import type { LogicalType } from "../connector/logical-types.js";

/** The kinds of column a table can continue from. */
export type CursorKind = "integer" | "date" | "timestamp" | "text";

export const cursorKinds: readonly CursorKind[] = ["integer", "date", "timestamp", "text"];

/** The cursor kind of a column's logical type, or undefined when it cannot be a cursor. */
export function cursorKindOf(type: LogicalType): CursorKind | undefined {
  switch (type.kind) {
    case "int16":
    case "int32":
    case "int64":
      return "integer";
    case "date":
      return "date";
    case "timestamp":
    case "timestamptz":
      return "timestamp";
    case "text":
      return "text";
    default:
      return undefined;
  }
}

export function isTimeKind(kind: CursorKind): kind is "date" | "timestamp" {
  return kind === "date" || kind === "timestamp";
}
