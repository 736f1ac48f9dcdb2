import type { TargetTableRef } from "@sqlload/core";

/**
 * Quotes an identifier, always, in backticks: names from sources may hold quotes, dots, spaces,
 * upper case or reserved words. ClickHouse reads backslash escapes inside backticks, so a
 * backslash is escaped as well as the backtick.
 */
export function quoteIdent(name: string): string {
  return `\`${name.replaceAll("\\", "\\\\").replaceAll("`", "\\`")}\``;
}

export function qualifiedName(database: string, name: string): string {
  return `${quoteIdent(database)}.${quoteIdent(name)}`;
}

export function qualifiedTable(ref: TargetTableRef): string {
  return qualifiedName(ref.schema, ref.name);
}

/**
 * A string literal. ClickHouse interprets backslash escapes in literals, so both the backslash
 * and the quote are escaped (doubling the quote alone would leave `\'` open). Values from data go
 * through query parameters instead; this is for names and folders in DDL and table functions.
 */
export function stringLiteral(value: string): string {
  return `'${value.replaceAll("\\", "\\\\").replaceAll("'", "\\'")}'`;
}
