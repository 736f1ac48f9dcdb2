import type { ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type CliResult, runSqlload, startSqlload } from "@sqlload/testing";
import { CATALOG, type EmulatedWarehouse, VOLUME, type WritePath } from "./harness.js";

export { SQLLOAD_CLI as CLI } from "@sqlload/testing";

const CONNECTOR = join(dirname(fileURLToPath(import.meta.url)), "..");

const made: string[] = [];

export function removeProjects(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/**
 * A throwaway project loading a Postgres source into the emulated warehouse, with the connector
 * installed as a user would (`node_modules/@sqlload/connector-databricks`, found by its
 * `"sqlload": {"connector": "databricks"}`). The CLI runs as a child process and reaches the
 * emulator in the test process through the `[target]` settings.
 */
export class DatabricksProject {
  readonly dir = mkdtempSync(join(tmpdir(), "sqlload-databricks-e2e-"));

  constructor(
    warehouse: EmulatedWarehouse,
    transactions: "auto" | "atomic" | "none",
    sourceUrl: string,
    tables: string,
    path: WritePath = "insert",
  ) {
    made.push(this.dir);
    mkdirSync(join(this.dir, "node_modules", "@sqlload"), { recursive: true });
    symlinkSync(CONNECTOR, join(this.dir, "node_modules", "@sqlload", "connector-databricks"), "dir");
    writeFileSync(join(this.dir, "warehouse-ca.pem"), warehouse.emulator.certificate.cert);
    const e = warehouse.emulator.endpoint;
    writeFileSync(
      join(this.dir, "sqlload.toml"),
      `[target]
connector = "databricks"
host = "${e.host}"
port = ${e.port}
http_path = "${e.httpPath}"
token = "\${DATABRICKS_TOKEN}"
catalog = "${CATALOG}"
ca_cert = "warehouse-ca.pem"
transactions = "${transactions}"
schema = "raw"
${path === "insert" ? "" : `volume = "${VOLUME}"\nbulk_threshold = ${path.threshold}\n`}
[sources.app]
connector = "postgres"
url = "${sourceUrl}"

${tables}
`,
    );
    writeFileSync(join(this.dir, ".env"), `DATABRICKS_TOKEN=${e.token}\n`);
  }

  run(args: readonly string[]): Promise<CliResult> {
    return runSqlload(args, { cwd: this.dir });
  }

  start(args: readonly string[]): ChildProcess {
    return startSqlload(args, { cwd: this.dir });
  }

  async ok(...args: string[]): Promise<CliResult> {
    const result = await this.run(args);
    if (result.code !== 0) throw new Error(`sqlload ${args.join(" ")} exited ${result.code}\n${result.stdout}\n${result.stderr}`);
    return result;
  }
}
