import { describeTargetConformance } from "@sqlload/conformance";
import type { LogicalType } from "@sqlload/core";
import { describe, it } from "vitest";
import { qualifiedSchema, qualifiedTable, quoteIdentifier } from "../src/databricks-dialect.js";
import { DatabricksSession } from "../src/databricks-session.js";
import { parseSettings } from "../src/databricks-settings.js";
import type { DatabricksTarget } from "../src/databricks-target.js";
import connector from "../src/index.js";

/**
 * The same target suite against a real Databricks SQL warehouse, when one is configured:
 * SQLLOAD_DATABRICKS_HOST, SQLLOAD_DATABRICKS_HTTP_PATH and SQLLOAD_DATABRICKS_TOKEN, with
 * SQLLOAD_DATABRICKS_CATALOG (default `main`) and SQLLOAD_DATABRICKS_TRANSACTIONS (default
 * `auto`). Each test makes a schema `sqlload_conf_<pid>_<n>` in the catalog and drops it after.
 * With SQLLOAD_DATABRICKS_VOLUME (`catalog.schema.volume`, a volume the token may write) every unit
 * goes through the bulk path (threshold 0; SQLLOAD_DATABRICKS_BULK_THRESHOLD overrides it).
 */
const env = process.env;
const missing = ["SQLLOAD_DATABRICKS_HOST", "SQLLOAD_DATABRICKS_HTTP_PATH", "SQLLOAD_DATABRICKS_TOKEN"].filter((k) => !env[k]);

if (missing.length > 0) {
  const reason = `skipped: set ${missing.join(", ")} to run the target conformance suite against a real Databricks warehouse`;
  console.log(`databricks (real workspace): ${reason}`);
  describe("databricks (real workspace): target conformance", () => {
    it.skip(reason, () => {});
  });
} else {
  const options = {
    host: env.SQLLOAD_DATABRICKS_HOST,
    http_path: env.SQLLOAD_DATABRICKS_HTTP_PATH,
    token: env.SQLLOAD_DATABRICKS_TOKEN,
    catalog: env.SQLLOAD_DATABRICKS_CATALOG ?? "main",
    transactions: env.SQLLOAD_DATABRICKS_TRANSACTIONS ?? "auto",
    ...(env.SQLLOAD_DATABRICKS_VOLUME
      ? { volume: env.SQLLOAD_DATABRICKS_VOLUME, bulk_threshold: Number(env.SQLLOAD_DATABRICKS_BULK_THRESHOLD ?? 0) }
      : {}),
  };
  const settings = parseSettings(options, process.cwd());
  let schemas = 0;
  describeTargetConformance(`databricks (real workspace${options.volume ? ", volume" : ""})`, {
    readsNewestRunLog: true,
    skips: {
      oddIdentifiers: "Unity Catalog refuses periods, spaces and control characters in table names and folds them to lower case",
      oddSchemaNames: "Unity Catalog refuses periods, spaces and control characters in schema names",
    },
    async connect() {
      const schema = `sqlload_conf_${process.pid}_${++schemas}`;
      const target = (await connector.target?.({ options, projectDir: process.cwd(), schema })) as DatabricksTarget;
      const reader = await DatabricksSession.open(settings);
      return {
        target,
        schema,
        async readAll(ref) {
          const info = await target.describeTable(ref);
          if (!info) return null;
          const select = info.columns.map(
            (c) => `${readExpression(quoteIdentifier(c.name), c.type)} AS ${quoteIdentifier(c.name)}`,
          );
          return reader.query(`SELECT ${select.join(", ")} FROM ${qualifiedTable(settings.catalog, ref)}`);
        },
        async cleanup() {
          const rows = await reader.query(
            `SELECT schema_name FROM ${quoteIdentifier(settings.catalog)}.information_schema.schemata WHERE startswith(schema_name, :p)`,
            { p: schema },
          );
          for (const r of rows) {
            await reader.execute(`DROP SCHEMA IF EXISTS ${qualifiedSchema(settings.catalog, r.schema_name ?? "")} CASCADE`);
          }
          await reader.close();
        },
      };
    },
  });
}

/** Every value as exact text the suite's normalizer reads: integers, decimals and floats as digits, timestamps as µs, binary as hex. */
function readExpression(column: string, type: LogicalType): string {
  switch (type.kind) {
    case "timestamp":
    case "timestamptz":
      return `CAST(unix_micros(${column}) AS STRING)`;
    case "date":
      return `CAST(unix_date(${column}) AS STRING)`;
    case "bytes":
      return `hex(${column})`;
    case "list":
      return `to_json(${column})`;
    case "boolean":
      return column;
    default:
      return `CAST(${column} AS STRING)`;
  }
}
