import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TargetTableRef } from "@sqlload/core";
import { DatabricksEmulator, type DatabricksEmulatorOptions, plainValue } from "@sqlload/testing/emulator";
import type { DatabricksTarget } from "../src/databricks-target.js";
import connector from "../src/index.js";

export const CATALOG = "sqlload";
/** The volume every emulated warehouse has, for the bulk path. */
export const VOLUME = "sqlload.staging.files";

/** How units are sent: `insert` (no volume), or through the volume from `threshold` rows on. */
export type WritePath = "insert" | { readonly threshold: number };

/**
 * A Databricks emulator for one test file, and the `[target]` settings that reach it (the
 * self-signed certificate written where `ca_cert` can name it).
 */
export class EmulatedWarehouse {
  private constructor(
    readonly emulator: DatabricksEmulator,
    readonly dir: string,
  ) {}

  static async start(options: DatabricksEmulatorOptions = {}): Promise<EmulatedWarehouse> {
    const emulator = await DatabricksEmulator.start({ catalogs: [CATALOG], volumes: [VOLUME], ...options });
    const dir = mkdtempSync(join(tmpdir(), "sqlload-databricks-test-"));
    writeFileSync(join(dir, "warehouse-ca.pem"), emulator.certificate.cert);
    return new EmulatedWarehouse(emulator, dir);
  }

  /** The `[target]` keys of a project whose folder is `this.dir`. */
  settings(transactions: "auto" | "atomic" | "none", path: WritePath = "insert"): Record<string, unknown> {
    const e = this.emulator.endpoint;
    return {
      ...(path === "insert" ? {} : { volume: VOLUME, bulk_threshold: path.threshold }),
      host: e.host,
      port: e.port,
      http_path: e.httpPath,
      token: e.token,
      catalog: CATALOG,
      ca_cert: "warehouse-ca.pem",
      transactions,
    };
  }

  async open(transactions: "auto" | "atomic" | "none", schema = "raw", path: WritePath = "insert"): Promise<DatabricksTarget> {
    if (!connector.target) throw new Error("no target");
    return (await connector.target({
      options: this.settings(transactions, path),
      projectDir: this.dir,
      schema,
    })) as DatabricksTarget;
  }

  /** Every row of a table as DuckDB holds it, in forms the conformance normalizer reads; null when absent. */
  async readAll(ref: TargetTableRef): Promise<Record<string, unknown>[] | null> {
    const exists = await this.emulator.database.query(
      "SELECT count(*) FROM information_schema.tables WHERE table_catalog = $c AND table_schema = $s AND table_name = $t",
      { c: CATALOG, s: ref.schema, t: ref.name },
    );
    if (Number(exists.rows[0]?.[0] ?? 0) === 0) return null;
    const result = await this.emulator.database.query(`SELECT * FROM ${duckName(ref)}`);
    return result.rows.map((row) =>
      Object.fromEntries(result.columns.map((c, i) => [c.name, comparable(plainValue(row[i] ?? null))])),
    );
  }

  /** Drops the schemas whose names start with `prefix`. */
  async dropSchemas(prefix: string): Promise<void> {
    const schemas = await this.emulator.database.query(
      "SELECT schema_name FROM information_schema.schemata WHERE catalog_name = $c AND starts_with(schema_name, $p)",
      { c: CATALOG, p: prefix },
    );
    for (const [name] of schemas.rows) {
      await this.emulator.database.query(`DROP SCHEMA IF EXISTS "${CATALOG}"."${String(name).replaceAll('"', '""')}" CASCADE`);
    }
  }

  async close(): Promise<void> {
    await this.emulator.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

export function duckName(ref: TargetTableRef): string {
  const q = (s: string) => `"${s.replaceAll('"', '""')}"`;
  return `${q(CATALOG)}.${q(ref.schema)}.${q(ref.name)}`;
}

function comparable(value: ReturnType<typeof plainValue>): unknown {
  if (value === null || typeof value !== "object" || value instanceof Uint8Array) return value;
  if (Array.isArray(value)) return value.map(comparable);
  const v = value as { kind: string; days?: number; micros?: bigint; text?: string };
  if (v.kind === "date") return v.days;
  if (v.kind === "timestamp") return v.micros;
  if (v.kind === "decimal") return v.text;
  return value;
}
