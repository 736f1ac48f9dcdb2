import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runSqlload } from "@sqlload/testing";
import pg from "pg";
import { queryDuckDB, sqlload, tempDir } from "./cli.js";

/**
 * Kills the built CLI at random instants and at exact crash points (SQLLOAD_TEST_CRASH), then
 * checks that the next run completes and the target holds exactly the source's rows.
 */

export type TargetKind = "duckdb" | "postgres";

export interface Scenario {
  readonly name: string;
  /** The table's settings in sqlload.toml. */
  readonly toml: string;
  /** Which generator the table uses. */
  readonly table: "orders" | "events" | "feed";
  /** Duplicates are acceptable (logged state without checkpoints under append): only loss is checked. */
  readonly duplicatesAllowed?: boolean;
}

const ROWS = { orders: 6000, events: 6000, feed: 24000 } as const;

/** The source: deterministic generators, a little slow so kills land mid-run. */
const MODULE = `import { checkpoint, source, type Context } from "sqlload";

const src = source("src");
const pause = () => new Promise((r) => setTimeout(r, 15));
const DAY = 86_400_000;
const START = Date.UTC(2026, 0, 1);

/** 6,000 orders over 6 days, one every 86.4 s, strictly increasing updated_at. */
export const orders = src.table(
  { columns: { id: "bigint not null", amount: "decimal(12,2)", updated_at: "timestamptz not null" } },
  async function* orders(ctx: Context) {
    const from = ctx.cursorValue instanceof Date ? ctx.cursorValue.getTime() : -Infinity;
    const to = ctx.cursorEnd instanceof Date ? ctx.cursorEnd.getTime() : Infinity;
    for (let page = 0; page < 12; page++) {
      const rows = [];
      for (let i = page * 500; i < (page + 1) * 500; i++) {
        const at = START + i * (6 * DAY / 6000);
        if (at >= from && at < to) rows.push({ id: i + 1, amount: ((i * 37) % 10000 / 100).toFixed(2), updated_at: new Date(at) });
      }
      await pause();
      yield rows;
    }
  },
);

/** An API of 12 pages of 500 events with a checkpoint after each page. */
export const events = src.table(
  { writeStrategy: "append", state: "logged", columns: { id: "bigint not null", page: "integer" } },
  async function* events(ctx: Context<number>) {
    for (let p = ctx.state ?? 0; p < 12; p++) {
      await pause();
      yield Array.from({ length: 500 }, (_, i) => ({ id: p * 500 + i + 1, page: p }));
      yield checkpoint(p + 1);
    }
  },
);

/** An API of 24 pages of 1,000 rows whose token is assigned before the page's rows, without checkpoints. */
export const feed = src.table(
  { writeStrategy: "append", state: "logged", columns: { id: "bigint not null", page: "integer" } },
  async function* feed(ctx: Context<number>) {
    let p = ctx.state ?? 0;
    while (p < 24) {
      await pause();
      const page = p;
      ctx.state = p + 1;
      for (let i = 0; i < 1000; i++) yield { id: page * 1000 + i + 1, page };
      p++;
    }
  },
);
`;

/** A small seeded PRNG (mulberry32), so every run of the suite kills at the same instants. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface KillReport {
  readonly scenario: string;
  readonly target: TargetKind;
  readonly how: string;
  readonly killed: boolean;
  readonly rows: number;
  readonly distinct: number;
}

export class CrashProject {
  readonly dir = tempDir("sqlload-crash-");
  private readonly schema: string;

  constructor(
    readonly scenario: Scenario,
    readonly target: TargetKind,
    private readonly postgresUrl: string | undefined,
    index: number,
  ) {
    this.schema = `crash_${index}`;
    writeFileSync(join(this.dir, "src.ts"), MODULE);
    const targetToml =
      target === "duckdb"
        ? `[target]\nconnector = "duckdb"\npath = "w.duckdb"\n`
        : `[target]\nconnector = "postgres"\nurl = "${postgresUrl}"\nschema = "${this.schema}"\n`;
    writeFileSync(
      join(this.dir, "sqlload.toml"),
      `${targetToml}\n[sources.src]\nconnector = "typescript"\nmodule = "src.ts"\n\n[sources.src.tables.${scenario.table}]\n${scenario.toml}\n`,
    );
  }

  get expected(): number {
    return ROWS[this.scenario.table];
  }

  /** Starts over: the target table and its run log are gone. */
  async fresh(): Promise<void> {
    if (this.target === "duckdb") {
      rmSync(join(this.dir, "w.duckdb"), { force: true });
      rmSync(join(this.dir, "w.duckdb.wal"), { force: true });
      return;
    }
    await this.pg(`DROP SCHEMA IF EXISTS "${this.schema}" CASCADE`);
  }

  private async pg(sql: string): Promise<pg.QueryResult> {
    const client = new pg.Client({ connectionString: this.postgresUrl });
    await client.connect();
    try {
      return await client.query(sql);
    } finally {
      await client.end();
    }
  }

  async counts(): Promise<{ rows: number; distinct: number }> {
    const table = `src__${this.scenario.table}`;
    if (this.target === "duckdb") {
      const [row] = await queryDuckDB(
        join(this.dir, "w.duckdb"),
        `select count(*)::int as rows, count(distinct id)::int as distinct from raw.${table}`,
      );
      return row as { rows: number; distinct: number };
    }
    const result = await this.pg(
      `select count(*)::int as rows, count(distinct id)::int as distinct from "${this.schema}"."${table}"`,
    );
    return result.rows[0] as { rows: number; distinct: number };
  }

  /** Runs a load and kills it after `delayMs` (or at a crash point); resolves whether it was killed. */
  async run(
    options: { delayMs?: number; crashAt?: string } = {},
  ): Promise<{ code: number | null; killed: boolean; stderr: string }> {
    const env = options.crashAt ? { SQLLOAD_TEST_CRASH: options.crashAt } : {};
    const result = await runSqlload(["load"], { cwd: this.dir, env, killAfterMs: options.delayMs });
    return { code: result.code, killed: result.signal === "SIGKILL", stderr: result.stderr };
  }

  /** A full uninterrupted load; throws with the output when it fails. */
  async complete(): Promise<void> {
    const result = await sqlload(["load"], { cwd: this.dir });
    if (result.code !== 0)
      throw new Error(
        `recovery run of ${this.scenario.name} on ${this.target} failed (${result.code}):\n${result.stdout}\n${result.stderr}`,
      );
  }
}

/**
 * One kill: start over, load with a kill (a random instant within `spanMs`, or a crash point),
 * sometimes kill the resuming run too, then load to completion and count.
 */
export async function killOnce(project: CrashProject, random: () => number, spanMs: number): Promise<KillReport> {
  await project.fresh();
  const points = ["read:1", "write:1", "commit:1", "read:2", "write:2", "commit:2", "commit:3"];
  const byPoint = random() < 0.4;
  const how = byPoint
    ? `crash at ${points[Math.floor(random() * points.length)]}`
    : `SIGKILL after ${Math.round(150 + random() * spanMs)} ms`;
  const first = byPoint
    ? await project.run({ crashAt: how.slice("crash at ".length) })
    : await project.run({ delayMs: Number(how.split(" ")[2]) });
  if (!first.killed && first.code !== 0)
    throw new Error(`${project.scenario.name}: the run to kill failed on its own (${first.code}): ${first.stderr}`);
  let detail = how;
  if (random() < 0.25) {
    // A crash while resuming.
    const delay = Math.round(150 + random() * spanMs);
    const second = await project.run({ delayMs: delay });
    if (second.killed) detail += `, then resuming killed after ${delay} ms`;
  }
  await project.complete();
  const { rows, distinct } = await project.counts();
  return { scenario: project.scenario.name, target: project.target, how: detail, killed: first.killed, rows, distinct };
}
