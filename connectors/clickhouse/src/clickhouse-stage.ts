import {
  type Column,
  type CommitUnitOptions,
  type CursorKind,
  type CursorRange,
  type CursorValue,
  compareCursor,
  type RunLogColumns,
  type RunLogRow,
  runLogRowFromColumns,
  SqlloadError,
  type TargetTableRef,
} from "@sqlload/core";
import {
  attachAllPartitions,
  type CatalogTable,
  type TargetDescription,
  tablesWithPrefix,
  tableUuid,
} from "./clickhouse-catalog.js";
import { qualifiedName, quoteIdent, stringLiteral } from "./clickhouse-dialect.js";
import { createTableSql, type Layout, layoutFor } from "./clickhouse-layout.js";
import { auxName, auxPrefix } from "./clickhouse-names.js";
import { anyOf, type CursorSpan, clickhouseRange, deletesEverything, spanMayOverlap } from "./clickhouse-range.js";
import { ensureRunLogTable, hasPublish, insertRunLog, selectRunLog } from "./clickhouse-run-log.js";
import type { ClickHouseSession } from "./clickhouse-session.js";

/** A range a unit deleted, kept until publish applies it to the target's rows. */
export interface StagedDelete {
  readonly column: string;
  readonly kind: CursorKind;
  readonly range: CursorRange;
  readonly includeNulls: boolean;
}

/** What a commit unit did, in order: deletes, and rows written into a staging table of its own. */
export type UnitOp =
  | ({ readonly op: "delete" } & StagedDelete)
  | { readonly op: "rows"; readonly table: string; readonly span: CursorSpan };

/** A publish's decision, kept in its journal table's comment; the run-log records are the journal's rows. */
interface Journal {
  readonly v: 1;
  readonly id: string;
  /** The table that becomes the target; null for a publish that only logs. */
  readonly build: string | null;
  /** The target's UUID before the swap (null: it did not exist) and the build table's. */
  readonly before: string | null;
  readonly after: string | null;
}

const JOURNAL_COLUMNS = "run_id String, table_name String, at String, format_version UInt32, body String, seq UInt32";

/**
 * The staged state of one target table in one connection: how ClickHouse, which has no
 * transactions, gets the commit contract.
 *
 * A commit unit writes its rows into a staging table of its own, so an aborted unit is dropped
 * whole. At `commit`, its rows join the table's *accumulated* rows (parts moved by ATTACH
 * PARTITION, never rewritten) and the ranges it deleted are applied to the rows accumulated
 * before it and kept for the target. Nothing of this is visible.
 *
 * `publish` makes it visible at once: it assembles a build table (the target's parts, hard-linked,
 * minus the deleted ranges, plus the accumulated rows), records its decision in a journal, swaps
 * the build table in with EXCHANGE TABLES (atomic), appends the run-log records, and drops what is
 * left. A crash before the journal leaves the target as it was; after it, the next run finishes
 * the publish (`recover`): whether the swap happened is read from the target's UUID, which
 * EXCHANGE changes, and the records are appended once (they carry the publish id).
 */
export class TableStage {
  /** Auxiliary tables this connection made for the table and has not dropped. */
  readonly tables = new Set<string>();
  private layout: Layout | undefined;
  private acc: string | undefined;
  private accSpan: CursorSpan | undefined;
  private deletes: StagedDelete[] = [];
  private baseDropped = false;
  private replaceBuild: string | undefined;
  /** The primary key of the `merge` units staged, whose rows replace those of their keys. */
  private mergeKeys: readonly string[] | undefined;
  private runLog: RunLogRow[] = [];
  private units = 0;
  private options: CommitUnitOptions | undefined;
  private seq = 0;
  /** Whether leftovers of earlier runs were dealt with in this connection. */
  recovered = false;

  constructor(
    private readonly session: ClickHouseSession,
    readonly ref: TargetTableRef,
    private readonly token: string,
    private readonly target: TargetDescription,
  ) {}

  /** The target table as this connection holds it (read again after a publish swaps it). */
  describeTarget(): Promise<CatalogTable | null> {
    return this.target.read();
  }

  private get db(): string {
    return this.ref.schema;
  }

  /** A fresh name for an auxiliary table of this connection (registered for cleanup). */
  newName(kind: "stage" | "build", suffix = ""): string {
    const name = auxName(kind, this.ref.name, `${this.token}_${++this.seq}${suffix}`);
    this.tables.add(name);
    return name;
  }

  /** The layout of this publish's tables, fixed by the first unit that needs one. */
  async resolveLayout(options: CommitUnitOptions, columns: readonly Column[]): Promise<Layout> {
    this.options ??= options;
    if (!this.layout) {
      this.layout = layoutFor(await this.target.read(), options, columns);
    }
    return this.layout;
  }

  /** Creates a table of `layout` (a `replace` unit passes its own). */
  async createTable(name: string, layout: Layout): Promise<void> {
    await this.session.command(createTableSql(this.db, name, layout, this.ref.name));
  }

  noteUnit(options: CommitUnitOptions): void {
    this.options ??= options;
  }

  async drop(names: Iterable<string>): Promise<void> {
    for (const name of [...names]) {
      await this.session.command(`DROP TABLE IF EXISTS ${qualifiedName(this.db, name)} SYNC`);
      this.tables.delete(name);
    }
  }

  /**
   * Takes in a committed unit: its deletes and rows join the staged state, in the order the unit
   * did them. A `merge` unit's rows replace the staged rows of the same keys.
   */
  async commitUnit(
    ops: readonly UnitOp[],
    runLog: readonly RunLogRow[],
    build: string | undefined,
    options: CommitUnitOptions,
  ): Promise<void> {
    const keys = options.strategy === "merge" && options.primaryKey?.length ? options.primaryKey : undefined;
    if (build) {
      // A new table replaces everything staged before it.
      await this.drop([...(this.acc ? [this.acc] : []), ...(this.replaceBuild ? [this.replaceBuild] : [])]);
      this.acc = undefined;
      this.accSpan = undefined;
      this.deletes = [];
      this.baseDropped = false;
      this.replaceBuild = build;
    }
    for (const op of ops) {
      if (op.op === "delete") await this.stageDelete(op);
      else await this.stageRows(op.table, op.span, keys);
    }
    this.runLog.push(...runLog);
    this.units++;
  }

  private async stageDelete(del: StagedDelete): Promise<void> {
    if (deletesEverything(del.range, del.includeNulls)) {
      this.baseDropped = true;
      this.deletes = [];
      if (this.acc) await this.drop([this.acc]);
      this.acc = undefined;
      this.accSpan = undefined;
      return;
    }
    this.deletes.push(del);
    if (this.acc && spanMayOverlap(this.accSpan, del.range, del.includeNulls)) {
      const condition = clickhouseRange({ column: del.column, kind: del.kind, range: del.range, includeNulls: del.includeNulls });
      await this.session.command(`DELETE FROM ${qualifiedName(this.db, this.acc)} WHERE ${condition.sql}`, condition.params);
    }
  }

  private async stageRows(table: string, span: CursorSpan, keys: readonly string[] | undefined): Promise<void> {
    if (span.rows === 0) {
      await this.drop([table]);
      return;
    }
    if (keys) this.mergeKeys = keys;
    if (this.acc && keys) await this.deleteKeysOf(this.acc, table, keys);
    if (!this.acc) {
      this.acc = table;
      this.accSpan = { ...span };
      return;
    }
    await attachAllPartitions(this.session, this.db, this.acc, table);
    await this.drop([table]);
    this.accSpan = unionSpan(this.accSpan, span);
  }

  /**
   * Deletes from `table` the rows whose key appears in `from`, so a merge leaves one row per key
   * that plain reads see (FINAL only guards against rows written by others). Each key part is
   * compared as (is it NULL, its value or the type's default), so NULL parts match NULL parts:
   * IN skips NULLs, and the setting that changes that is not applied inside a DELETE's mutation.
   */
  private async deleteKeysOf(table: string, from: string, keys: readonly string[]): Promise<void> {
    const list = keys.flatMap((k) => [`isNull(${quoteIdent(k)})`, `assumeNotNull(${quoteIdent(k)})`]).join(", ");
    await this.session.command(
      `DELETE FROM ${qualifiedName(this.db, table)} WHERE (${list}) IN (SELECT ${list} FROM ${qualifiedName(this.db, from)})`,
    );
  }

  get pending(): boolean {
    return this.units > 0;
  }

  /** Makes every committed unit visible at once (see the class comment). */
  async publish(): Promise<void> {
    if (this.units === 0) return;
    try {
      await this.publishUnits();
    } finally {
      // The swap gave the target another UUID (and maybe engine and columns), if it happened.
      this.target.forget();
    }
  }

  private async publishUnits(): Promise<void> {
    const target = await this.target.read();
    let build: string | undefined;
    if (this.replaceBuild) {
      build = this.replaceBuild;
      if (this.acc && this.mergeKeys) await this.deleteKeysOf(build, this.acc, this.mergeKeys);
      if (this.acc) await attachAllPartitions(this.session, this.db, build, this.acc);
    } else if (this.acc && !target) {
      // A new table: the accumulated rows already are it.
      build = this.acc;
    } else if (this.acc || (target && (this.deletes.length > 0 || this.baseDropped))) {
      build = this.newName("build");
      const layout = this.layout ?? (target && this.options ? layoutFor(target, this.options, []) : undefined);
      if (!layout) throw new SqlloadError("SL900", `no layout to publish ${this.ref.schema}.${this.ref.name} with`);
      await this.createTable(build, layout);
      if (target && !this.baseDropped) {
        if (layout.kind === "like") await attachAllPartitions(this.session, this.db, build, this.ref.name);
        else {
          // The target changes engine (a table becoming `merge`): its rows are copied once.
          const names = layout.columns.map((c) => c.name).filter((n) => target.columns.some((c) => c.name === n));
          const list = names.map(quoteIdent).join(", ");
          await this.session.command(
            `INSERT INTO ${qualifiedName(this.db, build)} (${list}) SELECT ${list} FROM ${qualifiedName(this.db, this.ref.name)}`,
          );
        }
        if (this.deletes.length > 0) {
          const condition = anyOf(
            coalesce(this.deletes).map((d, i) =>
              clickhouseRange({ column: d.column, kind: d.kind, range: d.range, includeNulls: d.includeNulls, prefix: `d${i}_` }),
            ),
          );
          await this.session.command(`DELETE FROM ${qualifiedName(this.db, build)} WHERE ${condition.sql}`, condition.params);
        }
      }
      if (this.acc && target && !this.baseDropped && this.mergeKeys) await this.deleteKeysOf(build, this.acc, this.mergeKeys);
      if (this.acc) await attachAllPartitions(this.session, this.db, build, this.acc);
    }
    const id = `${this.token}_${++this.seq}`;
    const journal: Journal = {
      v: 1,
      id,
      build: build ?? null,
      before: target?.uuid ?? null,
      after: build ? await tableUuid(this.session, this.db, build) : null,
    };
    await ensureRunLogTable(this.session, this.db);
    await this.writeJournal(journal);
    // Decided: the build table is the journal's now. Should the rest fail, discarding this
    // connection's tables must not drop it; the next run finishes the publish with it.
    if (build) this.tables.delete(build);
    const acc = this.acc !== build ? this.acc : undefined;
    const runLog = this.runLog;
    this.reset();
    await applyJournal(this.session, this.ref, auxName("publish", this.ref.name, id), journal, runLog);
    if (acc) await this.drop([acc]);
  }

  /**
   * Writes the journal under a staging name, then renames it into place: the rename is the
   * decision (atomic), so a journal is either complete or a leftover the next run drops.
   */
  private async writeJournal(journal: Journal): Promise<void> {
    const pending = this.newName("stage", "_journal");
    await this.session.command(
      `CREATE TABLE ${qualifiedName(this.db, pending)} (${JOURNAL_COLUMNS}) ENGINE = MergeTree ORDER BY seq COMMENT ${stringLiteral(JSON.stringify(journal))}`,
    );
    await this.session.insertJSON(
      this.db,
      pending,
      this.runLog.map((r, i) => ({
        run_id: r.runId,
        table_name: r.table,
        at: r.at,
        format_version: r.formatVersion,
        body: r.body,
        seq: i,
      })),
    );
    const name = auxName("publish", this.ref.name, journal.id);
    await this.session.command(`RENAME TABLE ${qualifiedName(this.db, pending)} TO ${qualifiedName(this.db, name)}`);
    this.tables.delete(pending);
  }

  /** Forgets every unit not yet published and drops their tables (a run that stopped or failed). */
  async discard(): Promise<void> {
    await this.drop([...this.tables]);
    this.reset();
  }

  private reset(): void {
    this.layout = undefined;
    this.acc = undefined;
    this.accSpan = undefined;
    this.deletes = [];
    this.baseDropped = false;
    this.replaceBuild = undefined;
    this.mergeKeys = undefined;
    this.runLog = [];
    this.units = 0;
    this.options = undefined;
  }

  /**
   * Deals with what earlier runs left: finishes every publish whose journal exists, then drops
   * every staging and build table of the table that this connection did not make.
   */
  async recover(): Promise<void> {
    // One listing serves both steps: a journal's apply drops only tables the second step may drop too.
    const publish = auxPrefix("publish", this.ref.name);
    const stage = auxPrefix("stage", this.ref.name);
    const build = auxPrefix("build", this.ref.name);
    const tables = await tablesWithPrefix(this.session, this.db, [publish, stage, build]);
    for (const journal of journalsIn(tables.filter((t) => t.name.startsWith(publish)))) {
      try {
        await applyJournal(
          this.session,
          this.ref,
          journal.name,
          journal.journal,
          await journalRows(this.session, this.ref, journal.name),
        );
      } finally {
        this.target.forget();
      }
    }
    for (const t of tables) {
      if (!(t.name.startsWith(stage) || t.name.startsWith(build)) || this.tables.has(t.name)) continue;
      await this.session.command(`DROP TABLE IF EXISTS ${qualifiedName(this.db, t.name)} SYNC`);
    }
    this.recovered = true;
  }
}

/**
 * Carries out a decided publish, each step safe to repeat: swap (unless the target's UUID shows
 * it happened), log (unless records of this publish exist), drop the old table and the journal.
 * A target that is neither the one the publish started from nor its build was replaced by hand
 * meanwhile (or the build table is gone): the data wins, and the publish is abandoned without
 * logging.
 */
async function applyJournal(
  session: ClickHouseSession,
  ref: TargetTableRef,
  name: string,
  journal: Journal,
  rows: readonly RunLogRow[],
) {
  const db = ref.schema;
  const target = qualifiedName(db, ref.name);
  let landed = true;
  if (journal.build) {
    const current = await tableUuid(session, db, ref.name);
    if (current === journal.after) {
      // Swapped before a crash.
    } else if (current === journal.before && (await tableUuid(session, db, journal.build)) === journal.after) {
      const build = qualifiedName(db, journal.build);
      await session.command(current === null ? `RENAME TABLE ${build} TO ${target}` : `EXCHANGE TABLES ${target} AND ${build}`);
    } else landed = false;
  }
  if (landed && rows.length > 0 && !(await hasPublish(session, db, ref.name, journal.id))) {
    await insertRunLog(session, db, ref.name, journal.id, rows);
  }
  // After the swap the build table's name holds the old rows (or nothing, after a rename).
  if (journal.build) await session.command(`DROP TABLE IF EXISTS ${qualifiedName(db, journal.build)} SYNC`);
  await session.command(`DROP TABLE IF EXISTS ${qualifiedName(db, name)} SYNC`);
}

async function journalsOf(session: ClickHouseSession, ref: TargetTableRef): Promise<{ name: string; journal: Journal }[]> {
  return journalsIn(await tablesWithPrefix(session, ref.schema, auxPrefix("publish", ref.name)));
}

/** The journals among a listing of a table's `publish` tables. */
function journalsIn(tables: readonly { name: string; comment: string }[]): { name: string; journal: Journal }[] {
  const out: { name: string; journal: Journal }[] = [];
  for (const t of tables) {
    try {
      const journal = JSON.parse(t.comment) as Journal;
      if (journal.v === 1 && typeof journal.id === "string") out.push({ name: t.name, journal });
    } catch {
      // Not a journal this version wrote: left alone.
    }
  }
  return out;
}

async function journalRows(session: ClickHouseSession, ref: TargetTableRef, name: string): Promise<RunLogRow[]> {
  const rows = await session.query<RunLogColumns>(
    `SELECT run_id, table_name, at, format_version, body FROM ${qualifiedName(ref.schema, name)} ORDER BY seq`,
  );
  return rows.map(runLogRowFromColumns);
}

/**
 * The run log as readers should see it: the logged records, then those of publishes that have
 * landed (or only log) but whose records a crash kept from the log, which the next run appends.
 */
export async function visibleRunLog(session: ClickHouseSession, ref: TargetTableRef, last?: number): Promise<RunLogRow[]> {
  // A journal's records are newer than every logged one, so the newest `last` are among the newest logged and the journals'.
  const rows = await selectRunLog(session, ref.schema, ref.name, last);
  for (const { name, journal } of await journalsOf(session, ref)) {
    if (journal.build && (await tableUuid(session, ref.schema, ref.name)) !== journal.after) continue;
    if (await hasPublish(session, ref.schema, ref.name, journal.id)) continue;
    rows.push(...(await journalRows(session, ref, name)));
  }
  // More than asked for would pass for the whole log.
  return last === undefined ? rows : rows.slice(-last);
}

function unionSpan(a: CursorSpan | undefined, b: CursorSpan): CursorSpan {
  if (!a) return { ...b };
  const min = !a.min ? b.min : !b.min ? a.min : compareCursor(a.min, b.min) <= 0 ? a.min : b.min;
  const max = !a.max ? b.max : !b.max ? a.max : compareCursor(a.max, b.max) >= 0 ? a.max : b.max;
  return { min, max, nulls: a.nulls || b.nulls, rows: a.rows + b.rows };
}

/**
 * Merges overlapping or touching ranges of one column, so a run of many windows deletes with one
 * short condition (`[a, b)` and `[b, c)` become `[a, c)`). Ranges that include NULLs, or of other
 * columns, are kept as they are.
 */
export function coalesce(deletes: readonly StagedDelete[]): StagedDelete[] {
  const plain = deletes.filter((d) => !d.includeNulls && d.column === deletes[0]?.column);
  const rest = deletes.filter((d) => !plain.includes(d));
  const lowerFirst = (a: CursorValue | undefined, b: CursorValue | undefined) =>
    !a ? (!b ? 0 : -1) : !b ? 1 : compareCursor(a, b);
  // On equal starts the inclusive one first, so merging never loses the start value itself.
  const sorted = [...plain].sort(
    (x, y) =>
      lowerFirst(x.range.from, y.range.from) || Number(x.range.fromInclusive === false) - Number(y.range.fromInclusive === false),
  );
  const out: StagedDelete[] = [];
  for (const d of sorted) {
    const last = out[out.length - 1];
    if (last && touches(last.range, d.range)) {
      const to =
        !last.range.to || !d.range.to ? undefined : compareCursor(last.range.to, d.range.to) >= 0 ? last.range.to : d.range.to;
      out[out.length - 1] = { ...last, range: { ...last.range, to } };
    } else out.push(d);
  }
  return [...out, ...rest];
}

/** Whether `b` (which starts no earlier than `a`) starts inside `a` or right at its end. */
function touches(a: CursorRange, b: CursorRange): boolean {
  if (!a.to) return true;
  if (!b.from) return true;
  const c = compareCursor(b.from, a.to);
  return c < 0 || (c === 0 && b.fromInclusive !== false);
}
