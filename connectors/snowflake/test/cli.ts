import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type CliResult, runSqlload } from "@sqlload/testing";
import type { SnowflakeEmulator } from "@sqlload/testing/emulator";

export { SQLLOAD_CLI as CLI, startSqlload } from "@sqlload/testing";

const CONNECTOR = join(dirname(fileURLToPath(import.meta.url)), "..");

/**
 * A throwaway project loading a Postgres database into the Snowflake emulator running in the
 * test process, with the connector installed as a user would (`node_modules/@sqlload/connector-snowflake`).
 */
export class SnowflakeProject {
  static readonly made: string[] = [];
  readonly dir = mkdtempSync(join(tmpdir(), "sqlload-snowflake-e2e-"));

  constructor(emulator: SnowflakeEmulator, source: string, tables: string) {
    SnowflakeProject.made.push(this.dir);
    mkdirSync(join(this.dir, "node_modules", "@sqlload"), { recursive: true });
    symlinkSync(CONNECTOR, join(this.dir, "node_modules", "@sqlload", "connector-snowflake"), "dir");
    writeFileSync(
      join(this.dir, "sqlload.toml"),
      `[target]\nconnector = "snowflake"\naccount = "emulator"\nuser = "sqlload"\npassword = "\${SNOWFLAKE_PASSWORD}"\ndatabase = "SQLLOAD"\naccess_url = "${emulator.url}"\nschema = "raw"\n\n[sources.app]\nconnector = "postgres"\nurl = "${source}"\n\n${tables}\n`,
    );
  }

  /** Loads into another target schema (each crash scenario uses its own). */
  setSchema(schema: string): this {
    const file = join(this.dir, "sqlload.toml");
    writeFileSync(file, readFileSync(file, "utf8").replace('schema = "raw"', `schema = "${schema}"`));
    return this;
  }

  /** Adds a `[target]` setting: `bulk_load_rows = 0`. */
  setTarget(line: string): this {
    const file = join(this.dir, "sqlload.toml");
    writeFileSync(file, readFileSync(file, "utf8").replace("[target]\n", `[target]\n${line}\n`));
    return this;
  }

  run(args: readonly string[]): Promise<CliResult> {
    return runSqlload(args, { cwd: this.dir, env: { SNOWFLAKE_PASSWORD: "secret" } });
  }

  async ok(...args: string[]): Promise<CliResult> {
    const result = await this.run(args);
    if (result.code !== 0) throw new Error(`sqlload ${args.join(" ")} exited ${result.code}\n${result.stdout}\n${result.stderr}`);
    return result;
  }
}

export function removeProjects(): void {
  for (const dir of SnowflakeProject.made.splice(0)) rmSync(dir, { recursive: true, force: true });
}
