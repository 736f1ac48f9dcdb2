import { appendFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type CliResult, runSqlload } from "@sqlload/testing";
import { openChdb, type Params } from "../src/clickhouse-session.js";

const here = dirname(fileURLToPath(import.meta.url));

export { SQLLOAD_CLI as CLI } from "@sqlload/testing";

const CONNECTOR = join(here, "..");

export type { CliResult } from "@sqlload/testing";

/**
 * A throwaway project loading into ClickHouse in process (chdb, folder `ch`), with the connector
 * installed as a user would: `node_modules/@sqlload/connector-clickhouse`, which the CLI finds by
 * its `"sqlload": {"connector": "clickhouse"}`. Its TypeScript tables serve rows from JSON files
 * the test rewrites between runs.
 */
export class ClickHouseProject {
  /** Every project made, for `removeProjects`. */
  static readonly made: string[] = [];
  readonly dir = mkdtempSync(join(tmpdir(), "sqlload-clickhouse-e2e-"));

  constructor(module: string, toml: string) {
    ClickHouseProject.made.push(this.dir);
    mkdirSync(join(this.dir, "data"));
    mkdirSync(join(this.dir, "node_modules", "@sqlload"), { recursive: true });
    symlinkSync(CONNECTOR, join(this.dir, "node_modules", "@sqlload", "connector-clickhouse"), "dir");
    writeFileSync(join(this.dir, "src.ts"), module);
    writeFileSync(
      join(this.dir, "sqlload.toml"),
      `[target]\nconnector = "clickhouse"\nchdb_path = "ch"\nschema = "raw"\n\n[sources.src]\nconnector = "typescript"\nmodule = "src.ts"\n\n${toml}`,
    );
  }

  /** Adds a block (a Postgres source, more tables) to sqlload.toml. */
  toml(text: string): this {
    appendFileSync(join(this.dir, "sqlload.toml"), `\n${text}\n`);
    return this;
  }

  /** Sets the rows a table's function yields (bigints as {"$bigint": "…"}). */
  rows(table: string, rows: readonly Record<string, unknown>[]): this {
    const json = JSON.stringify(rows, (_k, v) => (typeof v === "bigint" ? { $bigint: v.toString() } : v));
    writeFileSync(join(this.dir, "data", `${table}.json`), json);
    return this;
  }

  /** Runs the CLI; `killAfterMs` sends SIGKILL then, `env` adds variables (SQLLOAD_TEST_CRASH). */
  run(args: readonly string[], options: { env?: Record<string, string>; killAfterMs?: number } = {}): Promise<CliResult> {
    return runSqlload(args, { cwd: this.dir, ...options });
  }

  /** Runs and expects exit code 0. */
  async ok(...args: string[]): Promise<CliResult> {
    const result = await this.run(args);
    if (result.code !== 0) throw new Error(`sqlload ${args.join(" ")} exited ${result.code}\n${result.stdout}\n${result.stderr}`);
    return result;
  }

  /** Queries the project's ClickHouse (between runs: chdb lets one process open the folder at a time). */
  query<T = Record<string, unknown>>(sql: string, params?: Params): Promise<T[]> {
    return this.inspect((query) => query<T>(sql, params));
  }

  /** Runs several queries on one opening of the folder (each opening costs a fifth of a second). */
  async inspect<R>(
    check: (query: <T = Record<string, unknown>>(sql: string, params?: Params) => Promise<T[]>) => Promise<R>,
  ): Promise<R> {
    const session = await openChdb("ch", this.dir);
    try {
      return await check((sql, params) => session.query(sql, params));
    } finally {
      await session.release();
    }
  }
}

/** The module of the projects: tables reading data/<name>.json, each call logged to calls.jsonl. */
export function tableModule(
  tables: Record<string, { columns: Record<string, string>; settings?: Record<string, unknown> }>,
): string {
  const defs = Object.entries(tables)
    .map(
      ([name, t]) => `export const ${name} = src.table(
  { name: ${JSON.stringify(name)}, columns: ${JSON.stringify(t.columns)}, ...${JSON.stringify(t.settings ?? {})} },
  async function* (ctx) {
    const show = (v: unknown) => (v instanceof Date ? v.toISOString() : typeof v === "bigint" ? v.toString() : v ?? null);
    appendFileSync(join(process.cwd(), "calls.jsonl"), JSON.stringify({ table: ${JSON.stringify(name)}, from: show(ctx.cursorValue), to: show(ctx.cursorEnd) }) + "\\n");
    yield rows(${JSON.stringify(name)});
  },
);`,
    )
    .join("\n\n");
  return `import { appendFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { source } from "sqlload";

const src = source("src");
const rows = (name: string) =>
  JSON.parse(readFileSync(join(process.cwd(), "data", name + ".json"), "utf8"), (_k, v) =>
    v && typeof v === "object" && "$bigint" in v ? BigInt(v.$bigint) : v,
  );

${defs}
`;
}

/** Removes the projects the tests made. */
export function removeProjects(): void {
  for (const dir of ClickHouseProject.made.splice(0)) rmSync(dir, { recursive: true, force: true });
}
