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

/** A unit's temporary stage: every column as VARCHAR, plus the arrival order. */
export function createStageSql(stage: TargetTableRef, columns: readonly Column[]): string {
  const defs = columns.map((c) => `${quoteIdent(c.name)} VARCHAR`);
  return `CREATE TEMPORARY TABLE ${qualifiedTable(stage)} (${[...defs, `${quoteIdent(SEQ_COLUMN)} NUMBER(19,0)`].join(", ")})`;
}

/** The INSERT statements (with their array binds) that put a batch into the stage, rows numbered from `firstSeq`. */
export function stageInserts(
  stage: TargetTableRef,
  columns: readonly Column[],
  batch: RecordBatch,
  firstSeq: number,
): { sql: string; binds: (string | null)[][] }[] {
  const known = new Map(columns.map((c) => [c.name, c]));
  const present = batch.schema.map((c, i) => ({ column: known.get(c.name), index: i })).filter((c) => c.column);
  const names = [...present.map((p) => quoteIdent((p.column as Column).name)), quoteIdent(SEQ_COLUMN)];
  const sql = `INSERT INTO ${qualifiedTable(stage)} (${names.join(", ")}) VALUES (${names.map(() => "?").join(", ")})`;
  const perInsert = Math.max(1, Math.floor(MAX_BOUND_VALUES / names.length));
  const out: { sql: string; binds: (string | null)[][] }[] = [];
  for (let start = 0; start < batch.length; start += perInsert) {
    const binds: (string | null)[][] = [];
    for (let row = start; row < Math.min(batch.length, start + perInsert); row++) {
      const values = present.map((p) => stageText((batch.schema[p.index] as Column).type, cellValue(batch, p.index, row)));
      binds.push([...values, String(firstSeq + row)]);
    }
    out.push({ sql, binds });
  }
  return out;
}

/** The stage's rows typed as the target's columns: `TO_NUMBER(s."id", 19, 0) AS "id"`, … */
export function typedStageColumns(columns: readonly Column[], alias: string): string[] {
  return columns.map((c) => `${fromStageText(c.type, `${alias}.${quoteIdent(c.name)}`)} AS ${quoteIdent(c.name)}`);
}
