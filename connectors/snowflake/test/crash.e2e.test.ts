import { existsSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { type CliResult, createDatabase, type PostgresInstance, startPostgres, startSqlload } from "@sqlload/testing";
import { type RequestMatcher, requestMatching, SnowflakeEmulator } from "@sqlload/testing/emulator";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, removeProjects, SnowflakeProject } from "./cli.js";
import { stageTablesLeft } from "./harness.js";

// SIGKILL of the built CLI at the instants a Snowflake commit can be cut: rows staged but the
// transaction not begun, inside the transaction (its DELETE sent), with COMMIT in flight, and a
// --reload's SWAP in flight (it lands after the client died, so the run-log record that follows it
// never comes); and on the bulk path after the PUT (its COPY in flight) and after the COPY (before
// BEGIN). Each time the next run ends exactly equal to the source.
const built = existsSync(CLI);
const ROWS = 480;
const END = "2026-01-21T00:00:00Z";

describe.runIf(built)("crash safety into Snowflake (built CLI, emulator)", () => {
  let server: PostgresInstance;
  let emulator: SnowflakeEmulator;
  let src: string;
  beforeAll(async () => {
    server = await startPostgres();
    emulator = await SnowflakeEmulator.start();
    src = await createDatabase(server.url, "snowflake_crash");
    const client = new pg.Client({ connectionString: src });
    await client.connect();
    try {
      await client.query(
        `create table public.events (id bigint primary key, big numeric(38,0), k text, at timestamptz not null);
       insert into public.events
         select i, i::numeric * 100000000000000000, 'k' || i, timestamptz '2026-01-01 00:00:00+00' + i * interval '1 hour'
         from generate_series(1, ${ROWS}) i;`,
      );
    } finally {
      await client.end();
    }
  });
  afterAll(async () => {
    await emulator?.close();
    await server?.stop();
    removeProjects();
  });

  let schemas = 0;
  /** A project loading the source, into a target schema of its own; `bulk` sends every commit through PUT + COPY. */
  const project = (settings: string, bulk = false) => {
    const schema = `raw_${++schemas}`;
    const p = new SnowflakeProject(emulator, src, `[sources.app.tables."public.events"]\n${settings}`).setSchema(schema);
    if (bulk) p.setTarget("bulk_load_rows = 0");
    return { p, schema };
  };
  const windowed = (strategy: string) =>
    `cursor_column = "at"\nbatch_size = "1d"\ncursor_start = "2026-01-01"\nprimary_key = ["id"]\nwrite_strategy = "${strategy}"\n`;

  const targetRows = async (schema: string) =>
    (
      await emulator.database.query(
        `SELECT CAST(id AS VARCHAR), CAST(big AS VARCHAR), k, CAST(epoch_us("at") AS VARCHAR) FROM "${schema}"."app__events" ORDER BY id`,
      )
    ).rows.map((r) => r.map((v) => (v === null ? null : String(v))));
  const expected = Array.from({ length: ROWS }, (_, n) => {
    const i = n + 1;
    return [
      String(i),
      (BigInt(i) * 100000000000000000n).toString(),
      `k${i}`,
      String((Date.UTC(2026, 0, 1) + i * 3_600_000) * 1000),
    ];
  });
  const windowedRows = expected.filter((r) => BigInt(r[3] as string) < BigInt(Date.parse(END)) * 1000n);

  /** Runs `load`, holds the request `match` picks, SIGKILLs the CLI while it waits, then lets the request run. */
  async function killDuring(p: SnowflakeProject, args: string[], match: RequestMatcher): Promise<number | undefined> {
    const held = emulator.failures.holdNext(match);
    const child = startSqlload(args, { cwd: p.dir, env: { SNOWFLAKE_PASSWORD: "secret" } });
    let output = "";
    child.stdout?.on("data", (d) => (output += d));
    child.stderr?.on("data", (d) => (output += d));
    const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
    const first = await Promise.race([held.then(() => "held" as const), exited.then(() => "exited" as const)]);
    if (first === "exited") {
      emulator.failures.reset();
      throw new Error(`the load ended before the request was held:\n${output}`);
    }
    child.kill("SIGKILL");
    await exited;
    emulator.failures.releaseHeld();
    // The held request reaches DuckDB after its client died, as it would reach Snowflake.
    await new Promise((r) => setTimeout(r, 200));
    return child.pid;
  }

  /** The local folders of bulk files a process left in the temporary directory. */
  const localFolders = (pid: number | undefined) =>
    readdirSync(tmpdir()).filter((e) => e.startsWith(`sqlload-snowflake-${pid}-`));

  /** The n-th request of a shape. */
  const nth = (shape: string, n: number): RequestMatcher => {
    let seen = 0;
    return (r) => requestMatching({ shape })(r) && ++seen === n;
  };

  /** Runs to success; the run closes every session it opened (the killed run's stay open: nobody closes them). */
  const rerun = async (p: SnowflakeProject, args: string[]): Promise<CliResult> => {
    const before = emulator.openSessions;
    const again = await p.run(args);
    if (again.code !== 0) throw new Error(`rerun exited ${again.code}\n${again.stdout}\n${again.stderr}`);
    expect(emulator.openSessions).toBe(before);
    return again;
  };

  const scenarios: {
    name: string;
    strategy: string;
    match: () => RequestMatcher;
    bulk?: boolean;
    abandoned?: boolean;
    /** A load run to success first. */
    before?: string[];
    /** The killed run's, and the next's, when not the whole read. */
    args?: string[];
  }[] = [
    { name: "rows staged, the transaction not begun", strategy: "delete_insert", match: () => nth("begin", 5) },
    {
      // Only a window the table may hold rows in is deleted: here the five read again.
      name: "inside the transaction, its DELETE sent",
      strategy: "delete_insert",
      before: ["load", "--end-cursor", "2026-01-10T00:00:00Z"],
      args: ["load", "--start-cursor", "2026-01-05T00:00:00Z", "--end-cursor", END],
      match: () => nth("delete_range", 4),
      abandoned: true,
    },
    { name: "COMMIT in flight (it lands after the client died)", strategy: "delete_insert", match: () => nth("commit", 6) },
    { name: "a MERGE in flight", strategy: "merge", match: () => nth("merge", 3), abandoned: true },
    {
      name: "its files PUT, the COPY in flight (it lands after the client died)",
      strategy: "delete_insert",
      match: () => nth("copy", 4),
      bulk: true,
    },
    { name: "its files loaded by COPY, the transaction not begun", strategy: "merge", match: () => nth("begin", 5), bulk: true },
  ];

  for (const s of scenarios) {
    it(`killed with ${s.name}: the next run ends equal to the source`, async () => {
      const { p, schema } = project(windowed(s.strategy), s.bulk);
      const args = s.args ?? ["load", "--end-cursor", END];
      if (s.before) await rerun(p, s.before);
      const killed = await killDuring(p, args, s.match());
      const partial = await targetRows(schema).catch(() => []);
      expect(partial.length).toBeLessThan(windowedRows.length);
      if (s.abandoned) {
        // The killed run's transaction is still open and holds the table: the next run is refused
        // as retryable (exit 75), changing nothing, until Snowflake ends the abandoned session.
        const refused = await p.run(args);
        expect(refused.code, refused.stdout + refused.stderr).toBe(75);
        await emulator.expireSessions();
      }
      await rerun(p, args);
      expect(await targetRows(schema)).toEqual(windowedRows);
      if (s.bulk) {
        // The rerun swept the killed run's local files; its stage's files go with its session.
        expect(localFolders(killed)).toEqual([]);
        await emulator.expireSessions();
        expect(emulator.stages.allFiles()).toEqual([]);
        expect(await stageTablesLeft(emulator, schema)).toEqual([]);
      }
      await emulator.expireSessions();
    });
  }

  it("killed with a --reload's SWAP in flight (it lands, its run-log record never comes): the next runs end equal", async () => {
    const { p, schema } = project(`cursor_column = "at"\nprimary_key = ["id"]\n`, true);
    await rerun(p, ["load"]);
    const records = async () =>
      (await emulator.database.query(`SELECT count(*) FROM "${schema}"."_sqlload_runs"`)).rows[0]?.[0] as bigint;
    const before = await records();
    await killDuring(p, ["load", "--reload"], requestMatching({ shape: "swap" }));
    expect(await targetRows(schema)).toEqual(expected);
    expect(await records()).toBe(before);
    // The log still holds the first run's record, and the data agrees with its cursor: the next run
    // reads again only the rows at the maximum (and replaces them, as every run does), not the table.
    const again = await rerun(p, ["load"]);
    expect(again.stdout).toMatch(/loaded \S+ 1 rows/);
    expect(await targetRows(schema)).toEqual(expected);
    await rerun(p, ["load", "--reload"]);
    expect(await targetRows(schema)).toEqual(expected);
    expect(await records()).toBeGreaterThan(before);
    // The reruns dropped the killed run's half-swapped table; its temporary stage goes with its session.
    await emulator.expireSessions();
    const leftovers = await emulator.database.query(
      `SELECT table_name FROM duckdb_tables() WHERE schema_name = '${schema}' AND starts_with(table_name, '_sqlload_') AND table_name NOT IN ('_sqlload_runs')`,
    );
    expect(leftovers.rows).toEqual([]);
    expect(emulator.stages.allFiles()).toEqual([]);
  });
});
