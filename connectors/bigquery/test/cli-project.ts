import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type CliResult, runSqlload, startSqlload } from "@sqlload/testing";

const CONNECTOR = join(dirname(fileURLToPath(import.meta.url)), "..");

/**
 * A throwaway project loading a Postgres database into BigQuery (the emulator, through
 * `api_endpoint`), with the connector installed as a user would: in the project's
 * node_modules, found by its `"sqlload": {"connector": "bigquery"}`.
 */
export class BigQueryProject {
  static readonly made: string[] = [];
  readonly dir = mkdtempSync(join(tmpdir(), "sqlload-bigquery-e2e-"));

  constructor(target: Record<string, string | number>, toml: string) {
    BigQueryProject.made.push(this.dir);
    mkdirSync(join(this.dir, "node_modules", "@sqlload"), { recursive: true });
    symlinkSync(CONNECTOR, join(this.dir, "node_modules", "@sqlload", "connector-bigquery"), "dir");
    const settings = Object.entries(target)
      .map(([k, v]) => `${k} = ${JSON.stringify(v)}`)
      .join("\n");
    writeFileSync(
      join(this.dir, "sqlload.toml"),
      `[target]\nconnector = "bigquery"\nschema = "raw"\n${settings}\n\n[target.labels]\nteam = "data"\n\n${toml}`,
    );
  }

  run(args: readonly string[]): Promise<CliResult> {
    return runSqlload(args, { cwd: this.dir, env: { GCE_METADATA_HOST: "127.0.0.1:9", METADATA_SERVER_DETECTION: "none" } });
  }

  start(args: readonly string[]) {
    return startSqlload(args, { cwd: this.dir, env: { GCE_METADATA_HOST: "127.0.0.1:9", METADATA_SERVER_DETECTION: "none" } });
  }

  async ok(...args: string[]): Promise<CliResult> {
    const result = await this.run(args);
    if (result.code !== 0) throw new Error(`sqlload ${args.join(" ")} exited ${result.code}\n${result.stdout}\n${result.stderr}`);
    return result;
  }

  static removeAll(): void {
    for (const dir of BigQueryProject.made.splice(0)) rmSync(dir, { recursive: true, force: true });
  }
}
