import { type CursorKind, type CursorValue, formatDays, formatMicros, type RangeDialect } from "@sqlload/core";

/**
 * Quotes an identifier in backticks. BigQuery reads backslash escapes inside quoted identifiers,
 * so the backslash is escaped as well as the backtick.
 */
export function quoteIdentifier(name: string): string {
  return `\`${name.replaceAll("\\", "\\\\").replaceAll("`", "\\`")}\``;
}

/** `` `dataset`.`table` ``: jobs run in the target's project, so names need no project. */
export function qualifiedTable(dataset: string, table: string): string {
  return `${quoteIdentifier(dataset)}.${quoteIdentifier(table)}`;
}

/** A string literal with every character outside printable ASCII escaped, so no byte is reinterpreted. */
export function stringLiteral(value: string): string {
  let out = "'";
  for (const ch of value) {
    const code = ch.codePointAt(0) as number;
    if (ch === "'" || ch === "\\") out += `\\${ch}`;
    else if (code >= 0x20 && code < 0x7f) out += ch;
    else if (code <= 0xffff) out += `\\u${code.toString(16).padStart(4, "0")}`;
    else out += `\\U${code.toString(16).padStart(8, "0")}`;
  }
  return `${out}'`;
}

/** How the cursor column is stored: a timestamp cursor may be a TIMESTAMP or a DATETIME column. */
export type CursorColumnType = "INT64" | "DATE" | "TIMESTAMP" | "DATETIME" | "STRING";

/**
 * The range hooks for one cursor column. Bounds are literals (never parameters) so BigQuery can
 * prune partitions of a table partitioned by the cursor. Text compares as UTF-8 bytes, which is
 * code point order whatever collation the column, table or dataset sets.
 */
export function rangeDialect(columnType: CursorColumnType): RangeDialect {
  return {
    quoteIdentifier,
    orderExpression: (column: string, kind: CursorKind) => (kind === "text" ? `CAST(${column} AS BYTES)` : column),
    value: (value: CursorValue) => cursorLiteral(value, columnType),
  };
}

export function cursorLiteral(value: CursorValue, columnType: CursorColumnType): string {
  switch (value.kind) {
    case "integer":
      return String(value.value);
    case "date":
      return `DATE '${formatDays(value.value)}'`;
    case "timestamp": {
      const text = formatMicros(value.value);
      return columnType === "DATETIME" ? `DATETIME '${text.replace(/\+00$/, "")}'` : `TIMESTAMP '${text}'`;
    }
    case "text":
      return `CAST(${stringLiteral(value.value)} AS BYTES)`;
  }
}
