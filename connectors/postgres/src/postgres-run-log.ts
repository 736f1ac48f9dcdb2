import { RUN_LOG_TABLE, type RunLogReadOptions, type RunLogRow, runLogOrder, runLogRowsFromColumns } from "@sqlload/core";
import type pg from "pg";
import { errorKind } from "./errors.js";
import type { Queryable } from "./postgres-catalog.js";
import { dollarQuote, quoteIdent, quoteLiteral } from "./postgres-dialect.js";

/** The indexes a run log is created with (see ensureRunLogTable). */
export const RUN_LOG_TABLE_INDEX = `${RUN_LOG_TABLE}_table_seq`;
export const RUN_LOG_RUN_INDEX = `${RUN_LOG_TABLE}_run_id`;

/** The run log of a schema, qualified and quoted. */
export function runLogName(schema: string): string {
  return `${quoteIdent(schema)}.${quoteIdent(RUN_LOG_TABLE)}`;
}

/** Whether the schema has its run log, in one statement. */
export async function runLogExists(db: Queryable, schema: string): Promise<boolean> {
  const found = await db.query<{ present: boolean }>("SELECT to_regclass($1) IS NOT NULL AS present", [runLogName(schema)]);
  return found.rows[0]?.present === true;
}

/**
 * The run log lives beside the tables, in `<schema>."_sqlload_runs"`, and is written in the same
 * transaction as the data it describes. The body is kept as the exact JSON text core wrote
 * (`text`, not `jsonb`: jsonb would reorder keys and refuse `\u0000` in logged state).
 *
 * The log holds every table of its schema and grows by a record per commit, so its two reads go
 * through indexes of their own: a load's newest records of one table (`table_name, seq`, read
 * backwards, instead of walking the key past every other table's newer records) and a commit's
 * look for its own run (`run_id`, instead of reading the whole log once per window). They are
 * created with the table and never after: `CREATE INDEX` on a log that other loads are writing to
 * waits for their commits, and two such waits deadlock (the README says how to add them to an
 * older log). So the statements run only when the log is missing, decided by the server in one
 * round trip (a `DO` block): one whether the log exists or not.
 */
export async function ensureRunLogTable(db: Queryable, schema: string): Promise<void> {
  await db.query(ensureRunLogSql(schema));
}

/** The statement of ensureRunLogTable: one simple-protocol statement, so it may join others in one query. */
export function ensureRunLogSql(schema: string): string {
  const log = runLogName(schema);
  const body = `BEGIN
  IF to_regclass(${quoteLiteral(log)}) IS NULL THEN
    CREATE TABLE ${log} (
      seq bigserial PRIMARY KEY,
      run_id text NOT NULL,
      table_name text NOT NULL,
      at timestamptz NOT NULL,
      format_version integer NOT NULL,
      body text NOT NULL
    );
    CREATE INDEX ${quoteIdent(RUN_LOG_TABLE_INDEX)} ON ${log} (table_name, seq);
    CREATE INDEX ${quoteIdent(RUN_LOG_RUN_INDEX)} ON ${log} (run_id);
  END IF;
END`;
  return `DO ${dollarQuote(body)}`;
}

export function insertRunLogSql(schema: string): string {
  return `INSERT INTO ${runLogName(schema)} (run_id, table_name, at, format_version, body)
VALUES ($1, $2, $3::timestamptz, $4, $5)`;
}

/** Microseconds since 1970 as ISO 8601 UTC: milliseconds when that is exact (as JavaScript writes it), else microseconds. */
function isoOfMicros(micros: bigint): string {
  if (micros % 1000n === 0n) return new Date(Number(micros / 1000n)).toISOString();
  const ms = micros / 1000n - (micros < 0n && micros % 1000n !== 0n ? 1n : 0n);
  const rest = micros - ms * 1000n;
  return `${new Date(Number(ms)).toISOString().slice(0, -1)}${rest.toString().padStart(3, "0")}Z`;
}

/**
 * The records of one table (`formatTargetTable(ref)`, as core names it) in the order they were
 * written; with `runId`, only that run's; with `last`, only the newest `last` (read
 * backwards on the `table_name, seq` index). None when the schema has no log yet: that is
 * checked first, since inside a transaction a failed statement would abort it; on a connection
 * outside one (`outsideTransaction`) the log is read at once and its absence told by the error,
 * a round trip fewer; so is it when the caller knows it exists (`exists`).
 */
export async function readRunLog(
  db: Queryable,
  schema: string,
  table: string,
  only: RunLogReadOptions & {
    readonly runId?: string | undefined;
    readonly outsideTransaction?: boolean;
    /** The log is known to exist (this load saw it, under the table's lock): read at once. */
    readonly exists?: boolean;
  } = {},
): Promise<RunLogRow[]> {
  if (!only.outsideTransaction && !only.exists && !(await runLogExists(db, schema))) return [];
  const params: unknown[] = [table];
  const run = only.runId === undefined ? "" : ` AND run_id = $${params.push(only.runId)}`;
  let result: pg.QueryResult<{ run_id: string; table_name: string; at: string; format_version: number; body: string }>;
  try {
    result = await db.query(
      `SELECT run_id, table_name,
            (extract(epoch from date_trunc('second', at AT TIME ZONE 'UTC'))::int8 * 1000000
              + extract(microseconds from at AT TIME ZONE 'UTC')::int8 % 1000000)::text AS at,
            format_version, body
     FROM ${runLogName(schema)}
     WHERE table_name = $1${run}
     ${runLogOrder("seq", only)}`,
      params,
    );
  } catch (error) {
    if (only.outsideTransaction && errorKind(error) === "missing_table") return [];
    throw error;
  }
  return runLogRowsFromColumns(
    result.rows.map((r) => ({ ...r, at: isoOfMicros(BigInt(r.at)) })),
    only,
  );
}
