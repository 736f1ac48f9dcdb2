import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type CliResult, queryDuckDB, sqlload, tempDir } from "./cli.js";

/**
 * A throwaway project whose TypeScript source serves rows from JSON files the test rewrites
 * between runs, and records each call's cursor arguments in calls.jsonl.
 */
export class TestProject {
  readonly dir = tempDir("sqlload-project-");

  constructor(tables: Record<string, { columns: Record<string, string>; settings?: Record<string, unknown> }>, tableToml = "") {
    mkdirSync(join(this.dir, "data"));
    const defs = Object.entries(tables)
      .map(
        ([name, t]) => `export const ${name} = src.table(
  { name: ${JSON.stringify(name)}, columns: ${JSON.stringify(t.columns)}, ...${JSON.stringify(t.settings ?? {})} },
  async function* (ctx) {
    const show = (v: unknown) => (v instanceof Date ? v.toISOString() : typeof v === "bigint" ? v.toString() : v ?? null);
    appendFileSync(join(process.cwd(), "calls.jsonl"), JSON.stringify({ table: ${JSON.stringify(name)}, from: show(ctx.cursorValue), to: show(ctx.cursorEnd), window: ctx.window ?? null }) + "\\n");
    yield rows(${JSON.stringify(name)});
  },
);`,
      )
      .join("\n\n");
    writeFileSync(
      join(this.dir, "src.ts"),
      `import { appendFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { source } from "sqlload";

const src = source("src");
// Rows as JSON; {"$bigint": "…"} stands for a bigint.
const rows = (name: string) =>
  JSON.parse(readFileSync(join(process.cwd(), "data", name + ".json"), "utf8"), (_k, v) =>
    v && typeof v === "object" && "$bigint" in v ? BigInt(v.$bigint) : v,
  );

${defs}
`,
    );
    writeFileSync(
      join(this.dir, "sqlload.toml"),
      `[target]\nconnector = "duckdb"\npath = "w.duckdb"\n\n[sources.src]\nconnector = "typescript"\nmodule = "src.ts"\n\n${tableToml}`,
    );
  }

  /** Sets the rows a table's function yields. */
  rows(table: string, rows: readonly Record<string, unknown>[]): this {
    const json = JSON.stringify(rows, (_k, v) => (typeof v === "bigint" ? { $bigint: v.toString() } : v));
    writeFileSync(join(this.dir, "data", `${table}.json`), json);
    return this;
  }

  run(...args: string[]): Promise<CliResult> {
    return sqlload(args, { cwd: this.dir });
  }

  /** Runs and expects exit code 0. */
  async ok(...args: string[]): Promise<CliResult> {
    const result = await this.run(...args);
    if (result.code !== 0) throw new Error(`sqlload ${args.join(" ")} exited ${result.code}\n${result.stdout}\n${result.stderr}`);
    return result;
  }

  query(sql: string): Promise<Record<string, unknown>[]> {
    return queryDuckDB(join(this.dir, "w.duckdb"), sql);
  }

  /** The calls the table functions received since the last call of this method. */
  calls(): { table: string; from: string | null; to: string | null; window: { index: number; count: number } | null }[] {
    const file = join(this.dir, "calls.jsonl");
    if (!existsSync(file)) return [];
    const lines = readFileSync(file, "utf8").trim().split("\n").filter(Boolean);
    writeFileSync(file, "");
    return lines.map((l) => JSON.parse(l));
  }
}
