import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ConnectorConfigSchema } from "../connector/connector.js";
import { connectorNames, loadConfig } from "./load-config.js";

const schemas: Record<string, ConnectorConfigSchema> = {
  duckdb: { target: [{ key: "path", type: "string", description: "file" }] },
  postgres: { source: [{ key: "url", type: "string", description: "url", secret: true, required: true }] },
  typescript: { source: [{ key: "module", type: "string", description: "module", required: true }] },
};

function project(toml: string, env: Record<string, string> = {}) {
  const dir = mkdtempSync(join(tmpdir(), "sqlload-config-"));
  writeFileSync(join(dir, "sqlload.toml"), toml);
  return loadConfig(join(dir, "sqlload.toml"), { env, connectorSchema: (name) => schemas[name] });
}

function error(toml: string, env: Record<string, string> = {}) {
  try {
    project(toml, env);
  } catch (e) {
    return e as { code: string; message: string; hint: string; location?: { line?: number; key?: string } };
  }
  throw new Error("expected a config error");
}

const base = `[target]
connector = "duckdb"
path = "w.duckdb"

[sources.app]
connector = "postgres"
url = "\${APP_URL:-postgres://u:secretpw@localhost/app}"
`;

describe("loadConfig", () => {
  it("reads the spec's example: tables, target names and settings", () => {
    const config = project(`${base}
[sources.app.tables."public.orders"]
description = "Orders, one row per order."
cursor_column = "updated_at"
cursor_start = "2026-09-01"
batch_size = "7d"
lookback = "1h"
write_strategy = "delete_insert"
primary_key = ["id"]

[sources.app.tables.'public."Odd ""Name"""']
`);
    expect(config.target).toMatchObject({ connector: "duckdb", schema: "raw", options: { path: "w.duckdb" } });
    const [orders, odd] = config.sources[0]!.tables;
    expect(orders!.target).toEqual({ schema: "raw", name: "app__orders" });
    expect(orders!.settings.lookback?.text).toBe("1h");
    expect(orders!.settings.cursorStart).toBe("2026-09-01");
    expect(odd!.ref).toEqual({ schema: "public", name: 'Odd "Name"', key: 'public."Odd ""Name"""' });
    expect(odd!.target.name).toBe('app__Odd "Name"');
    expect(config.secrets).toContain("postgres://u:secretpw@localhost/app");
  });

  it("suggests the key a typo meant, with file and line", () => {
    const e = error(`${base}
[sources.app.tables."public.orders"]
cursor_colum = "updated_at"
`);
    expect(e.code).toBe("SL102");
    expect(e.hint).toContain("did you mean `cursor_column`?");
    expect(e.location?.line).toBe(10);
    expect(e.location?.key).toBe('sources.app.tables."public.orders".cursor_colum');
  });

  it("refuses a bad duration with SL104 at its line", () => {
    const e = error(`${base}
[sources.app.tables.orders]
cursor_column = "updated_at"
lookback = "1 hour"
`);
    expect(e.code).toBe("SL104");
    expect(e.location?.line).toBe(11);
  });

  it("refuses lookback with append (SL106)", () => {
    const e = error(`${base}
[sources.app.tables.orders]
cursor_column = "id"
write_strategy = "append"
lookback = "1h"
`);
    expect(e.code).toBe("SL106");
  });

  it("refuses merge without primary_key, unknown strategies, and max_windows_per_run without batch_size", () => {
    expect(error(`${base}\n[sources.app.tables.orders]\ncursor_column = "id"\nwrite_strategy = "merge"\n`).code).toBe("SL108");
    const strategy = error(`${base}\n[sources.app.tables.orders]\nwrite_strategy = "upsert"\n`);
    expect(strategy.code).toBe("SL107");
    expect(error(`${base}\n[sources.app.tables.orders]\ncursor_column = "id"\nmax_windows_per_run = 2\n`).code).toBe("SL112");
    expect(error(`${base}\n[sources.app.tables.orders]\nlookback = "1h"\n`).code).toBe("SL112");
  });

  it("refuses cursor_end not after cursor_start (SL111)", () => {
    expect(
      error(`${base}\n[sources.app.tables.orders]\ncursor_column = "d"\ncursor_start = "2026-10-01"\ncursor_end = "2025-10-01"\n`)
        .code,
    ).toBe("SL111");
    expect(error(`${base}\n[sources.app.tables.orders]\ncursor_column = "k"\ncursor_start = "b"\ncursor_end = "B"\n`).code).toBe(
      "SL111",
    );
  });

  it("refuses wrong types and bad batch sizes", () => {
    expect(error(`${base}\n[sources.app.tables.orders]\nprimary_key = "id"\n`).code).toBe("SL103");
    expect(error(`${base}\n[sources.app.tables.orders]\ncursor_column = "id"\nbatch_size = "7 days"\n`).code).toBe("SL115");
  });

  it("reports TOML syntax errors with their line (SL101)", () => {
    const e = error(`${base}\n[sources.app.tables.orders\n`);
    expect(e.code).toBe("SL101");
    expect(e.location?.line).toBe(9);
  });

  it("interpolates ${VAR} and refuses unset variables without a default (SL109)", () => {
    expect(project(base, { APP_URL: "postgres://x@h/db" }).sources[0]!.options.url).toBe("postgres://x@h/db");
    const e = error(`${base}\n[sources.other]\nconnector = "postgres"\nurl = "\${OTHER_URL}"\n`);
    expect(e.code).toBe("SL109");
    expect(e.message).toContain("OTHER_URL");
  });

  it("reads ${VAR} from .env beside the file, the environment winning", () => {
    const dir = mkdtempSync(join(tmpdir(), "sqlload-config-"));
    writeFileSync(join(dir, "sqlload.toml"), base);
    writeFileSync(join(dir, ".env"), "APP_URL=postgres://from-dotenv@h/db\n");
    const load = (env: Record<string, string>) =>
      loadConfig(join(dir, "sqlload.toml"), { env, connectorSchema: (name) => schemas[name] });
    expect(load({}).sources[0]!.options.url).toBe("postgres://from-dotenv@h/db");
    expect(load({ APP_URL: "postgres://from-env@h/db" }).sources[0]!.options.url).toBe("postgres://from-env@h/db");
  });

  it("names a connector that is not installed and how to install it (SL400)", () => {
    const e = error(`[sources.x]\nconnector = "bigquery"\n`);
    expect(e.code).toBe("SL400");
    expect(e.hint).toContain("connector-bigquery");
  });

  it("refuses unknown source keys and invalid table keys", () => {
    expect(error(`${base.replace('connector = "postgres"', 'connector = "postgres"\nurll = "x"')}`).code).toBe("SL102");
    expect(error(`${base}\n[sources.app.tables."public.Orders"]\n`).code).toBe("SL110");
  });

  it("reads connect_retries and connect_timeout of the target and each source, over the defaults", () => {
    const config = project(
      base
        .replace('path = "w.duckdb"', 'path = "w.duckdb"\nconnect_retries = 0')
        .replace('connector = "postgres"', 'connector = "postgres"\nconnect_timeout = "1m30s"'),
    );
    expect(config.target.connect).toEqual({ retries: 0, timeoutMs: 10_000 });
    expect(config.sources[0]!.connect).toEqual({ retries: 4, timeoutMs: 90_000 });
    expect(error(base.replace('path = "w.duckdb"', 'path = "w.duckdb"\nconnect_retries = -1'))).toMatchObject({
      code: "SL103",
      location: { line: 4, key: "target.connect_retries" },
    });
    expect(error(base.replace('path = "w.duckdb"', 'path = "w.duckdb"\nconnect_timeout = 10')).code).toBe("SL104");
  });

  it("keeps integers beyond 2^53 exact, and refuses one in a connector's integer key instead of rounding it", () => {
    const config = project(
      `${base}\n[sources.app.tables."public.orders"]\ncursor_column = "id"\ncursor_start = 9007199254740995\nbatch_size = 9007199254740993\n`,
    );
    expect(config.sources[0]!.tables[0]!.settings).toMatchObject({
      cursorStart: "9007199254740995",
      batchSize: 9007199254740993n,
    });
    const withPort: Record<string, ConnectorConfigSchema> = {
      ...schemas,
      postgres: { source: [...(schemas.postgres!.source ?? []), { key: "port", type: "integer" as const, description: "port" }] },
    };
    const dir = mkdtempSync(join(tmpdir(), "sqlload-config-"));
    writeFileSync(
      join(dir, "sqlload.toml"),
      base.replace('connector = "postgres"', 'connector = "postgres"\nport = 9007199254740995'),
    );
    expect(() => loadConfig(join(dir, "sqlload.toml"), { env: {}, connectorSchema: (name) => withPort[name] })).toThrowError(
      expect.objectContaining({ code: "SL103", message: expect.stringContaining("below 2^53") }),
    );
  });

  it("lists the connectors a file names even when it holds integers beyond 2^53", () => {
    const dir = mkdtempSync(join(tmpdir(), "sqlload-config-"));
    writeFileSync(
      join(dir, "sqlload.toml"),
      `${base}\n[sources.app.tables."public.orders"]\ncursor_column = "id"\ncursor_start = 9007199254740995\n`,
    );
    expect([...connectorNames(join(dir, "sqlload.toml"))].sort()).toEqual(["duckdb", "postgres"]);
  });
});
