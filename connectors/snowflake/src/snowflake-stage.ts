import type { Column, RecordBatch, TargetTableRef } from "@sqlload/core";
import { cellValue } from "@sqlload/core";
import { qualifiedTable, quoteIdent } from "./snowflake-dialect.js";
import { fromStageText, stageText } from "./snowflake-types.js";

/** The stage's own column: the order rows arrived in, so a later row of one key wins a merge. */
export const SEQ_COLUMN = "_sqlload_seq";

/**
 * The driver sends more than CLIENT_STAGE_ARRAY_BINDING_THRESHOLD (65,280) bound values through an
 * internal stage; sqlload keeps each INSERT below it so a unit's rows always travel inline.
 */
export const MAX_BOUND_VALUES = 60_000;

/** One staged row: every stage column in order (the target's columns, then the arrival number), as text. */
export type StageRow = (string | null)[];

/** A unit's temporary stage: every column as VARCHAR, plus the arrival order. */
export function createStageSql(stage: TargetTableRef, columns: readonly Column[]): string {
  const defs = columns.map((c) => `${quoteIdent(c.name)} VARCHAR`);
  return `CREATE TEMPORARY TABLE ${qualifiedTable(stage)} (${[...defs, `${quoteIdent(SEQ_COLUMN)} NUMBER(19,0)`].join(", ")})`;
}

/**
 * A batch's rows as stage rows, numbered from `firstSeq`. A stage column the batch lacks is NULL,
 * so every row has the stage's shape whether it travels as binds or in a file.
 */
export function stageRows(columns: readonly Column[], batch: RecordBatch, firstSeq: number): StageRow[] {
  // Each value is rendered by the batch's own type (a list of text stays a list of text even where
  // the table's ARRAY column reads back as a list of JSON).
  const index = new Map(batch.schema.map((c, i) => [c.name, i]));
  const sources = columns
    .map((c) => index.get(c.name))
    .map((at) => (at === undefined ? undefined : { at, column: batch.schema[at] as Column }));
  const rows: StageRow[] = [];
  for (let row = 0; row < batch.length; row++) {
    const values = sources.map((s) => (s === undefined ? null : stageText(s.column.type, cellValue(batch, s.at, row))));
    values.push(String(firstSeq + row));
    rows.push(values);
  }
  return rows;
}

/** The INSERT statements (with their array binds) that put stage rows into the stage. */
export function stageInserts(
  stage: TargetTableRef,
  columns: readonly Column[],
  rows: readonly StageRow[],
): { sql: string; binds: StageRow[] }[] {
  const names = [...columns.map((c) => quoteIdent(c.name)), quoteIdent(SEQ_COLUMN)];
  const sql = `INSERT INTO ${qualifiedTable(stage)} (${names.join(", ")}) VALUES (${names.map(() => "?").join(", ")})`;
  const perInsert = Math.max(1, Math.floor(MAX_BOUND_VALUES / names.length));
  const out: { sql: string; binds: StageRow[] }[] = [];
  for (let start = 0; start < rows.length; start += perInsert) out.push({ sql, binds: rows.slice(start, start + perInsert) });
  return out;
}

/** The stage's rows typed as the target's columns: `TO_NUMBER(s."id", 19, 0) AS "id"`, … */
export function typedStageColumns(columns: readonly Column[], alias: string): string[] {
  return columns.map((c) => `${fromStageText(c.type, `${alias}.${quoteIdent(c.name)}`)} AS ${quoteIdent(c.name)}`);
}
