import type { Column, CommitUnitOptions, WriteStrategy } from "@sqlload/core";
import type { CatalogTable } from "./clickhouse-catalog.js";
import { qualifiedName, quoteIdent, stringLiteral } from "./clickhouse-dialect.js";
import { columnTypeSql } from "./clickhouse-types.js";

/**
 * How the tables of one publish are made. Staging and build tables must match the target part
 * for part (same columns, engine, sorting key) for `ATTACH PARTITION … FROM` to move parts
 * between them without rewriting data:
 * - `like`: the target exists and suits the strategy: `CREATE TABLE x AS target`;
 * - `ddl`: the target is absent, or must change engine (a `merge` table needs ReplacingMergeTree
 *   on its keys): every table of the publish is created from this definition, and an existing
 *   target's rows are copied into the build table once.
 */
export type Layout =
  | { readonly kind: "like" }
  | {
      readonly kind: "ddl";
      readonly columns: readonly { readonly name: string; readonly type: string }[];
      readonly engine: "MergeTree" | "ReplacingMergeTree";
      readonly orderBy: readonly string[];
    };

/**
 * The comment of a table `ensureTable` created: its engine and sorting key are placeholders
 * (ensureTable is not told the strategy or the cursor), replaced by the first publish.
 */
export const PROVISIONAL_COMMENT = "sqlload: created empty; its first load sets the engine and sorting key";

export function createTableSql(database: string, name: string, layout: Layout, target: string, comment?: string): string {
  const table = qualifiedName(database, name);
  if (layout.kind === "like") return `CREATE TABLE ${table} AS ${qualifiedName(database, target)}`;
  const defs = layout.columns.map((c) => `${quoteIdent(c.name)} ${c.type}`).join(", ");
  const keyTypes = layout.orderBy.map((k) => layout.columns.find((c) => c.name === k)?.type ?? "");
  const orderBy =
    layout.orderBy.length === 0
      ? "tuple()"
      : layout.orderBy.length === 1
        ? quoteIdent(layout.orderBy[0] as string)
        : `(${layout.orderBy.map(quoteIdent).join(", ")})`;
  // A nullable cursor or key column may lead the sorting key only with this table setting.
  const settings = keyTypes.some((t) => t.startsWith("Nullable(")) ? " SETTINGS allow_nullable_key = 1" : "";
  const remark = comment ? ` COMMENT ${stringLiteral(comment)}` : "";
  return `CREATE TABLE ${table} (${defs}) ENGINE = ${layout.engine} ORDER BY ${orderBy}${settings}${remark}`;
}

/**
 * The layout sqlload creates for a strategy: `merge` a ReplacingMergeTree ordered by the primary
 * key (its rows collapse to the last written per key; reads use FINAL); every other strategy a
 * MergeTree ordered by the cursor, then the key, so range deletes and the maximum read few parts.
 */
export function desiredLayout(
  columns: readonly { readonly name: string; readonly type: string }[],
  strategy: WriteStrategy,
  cursor: string | undefined,
  primaryKey: readonly string[] | undefined,
): Layout {
  const names = new Set(columns.map((c) => c.name));
  const key = (primaryKey ?? []).filter((k) => names.has(k));
  if (strategy === "merge") return { kind: "ddl", columns, engine: "ReplacingMergeTree", orderBy: key };
  const lead = cursor && names.has(cursor) ? [cursor] : [];
  return { kind: "ddl", columns, engine: "MergeTree", orderBy: [...lead, ...key.filter((k) => k !== cursor)] };
}

/** `updated_at, \`Odd name\`` → `["updated_at", "Odd name"]`; expressions stay as written. */
export function sortingColumns(sortingKey: string): string[] {
  const text = unwrapParens(sortingKey.trim());
  const out: string[] = [];
  let depth = 0;
  let quoted = false;
  let current = "";
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (quoted) {
      if (ch === "\\") {
        current += text[++i] ?? "";
        continue;
      }
      if (ch === "`") quoted = false;
      else current += ch;
      continue;
    }
    if (ch === "`") quoted = true;
    else if (ch === "(") {
      depth++;
      current += ch;
    } else if (ch === ")") {
      depth--;
      current += ch;
    } else if (ch === "," && depth === 0) {
      out.push(current.trim());
      current = "";
    } else current += ch;
  }
  if (current.trim()) out.push(current.trim());
  return out;
}

/** `(id)` → `id`: ClickHouse prints a parenthesised one-column key with its parentheses. */
function unwrapParens(text: string): string {
  if (!text.startsWith("(") || !text.endsWith(")")) return text;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === "(") depth++;
    else if (text[i] === ")" && --depth === 0 && i < text.length - 1) return text;
  }
  return text.slice(1, -1);
}

function sameKey(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/**
 * The layout of a publish that writes rows into `target` (null: absent) with `options`:
 * - an absent target, or one `ensureTable` created empty, gets `desiredLayout`;
 * - `merge` keeps the target when it is a ReplacingMergeTree sorted by exactly the primary key,
 *   and otherwise converts it (once) to one;
 * - `replace` builds anew, keeping a ReplacingMergeTree's sorting key when every key column is
 *   still there, so a reloaded `merge` table stays mergeable (a unit of `--reload` is told
 *   `replace`, not the table's own strategy);
 * - every other strategy keeps any MergeTree-family table as it is.
 */
export function layoutFor(target: CatalogTable | null, options: CommitUnitOptions, columns: readonly Column[]): Layout {
  const cursor = options.cursor?.column;
  if (options.strategy === "replace" || !target) {
    const defs = columns.map((c) => ({ name: c.name, type: columnTypeSql(c) }));
    if (target && options.strategy === "replace" && target.engine === "ReplacingMergeTree") {
      const key = sortingColumns(target.sortingKey);
      if (key.length > 0 && key.every((k) => defs.some((c) => c.name === k))) {
        return { kind: "ddl", columns: defs, engine: "ReplacingMergeTree", orderBy: key };
      }
    }
    return desiredLayout(defs, options.strategy, cursor, options.primaryKey);
  }
  const existing = target.columns.map((c) => ({ name: c.name, type: c.type }));
  if (target.comment === PROVISIONAL_COMMENT) return desiredLayout(existing, options.strategy, cursor, options.primaryKey);
  if (options.strategy === "merge") {
    const key = [...(options.primaryKey ?? [])];
    if (target.engine === "ReplacingMergeTree" && sameKey(sortingColumns(target.sortingKey), key)) return { kind: "like" };
    return desiredLayout(existing, "merge", cursor, key);
  }
  if (target.engine.endsWith("MergeTree")) return { kind: "like" };
  return desiredLayout(existing, options.strategy, cursor, options.primaryKey);
}
