import { type CursorValue, formatDays } from "@sqlload/core";

/** A cursor bound in the form a table function reads easily (see `Context.cursorValue`). */
export function cursorArgument(value: CursorValue | undefined): bigint | string | Date | undefined {
  if (!value) return undefined;
  switch (value.kind) {
    case "integer":
      return value.value;
    case "date":
      return formatDays(value.value);
    case "timestamp":
      return new Date(Number(value.value / 1000n));
    case "text":
      return value.value;
  }
}
