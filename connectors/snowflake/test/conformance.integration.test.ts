import { describeTargetConformance, type TargetFixture } from "@sqlload/conformance";
import { afterAll, beforeAll, describe, it } from "vitest";
import { qualifiedTable, quoteIdent } from "../src/snowflake-dialect.js";
import type { SnowflakeSession } from "../src/snowflake-session.js";
import { SnowflakeTarget } from "../src/snowflake-target.js";
import type { CatalogColumn } from "../src/snowflake-types.js";
import { type Engine, emulatorEngine, freshSchema, openSession, realEngine } from "./harness.js";

/**
 * The published target suite against the emulator, and against a real account when its
 * credentials are in the environment. The reader is a session of its own that selects every
 * column as exact text: numbers and timestamps (epoch microseconds) as digits, binary as hex,
 * VARIANT and ARRAY as JSON text.
 */
const real = realEngine();
// On the emulator every unit takes the bulk path (gzip CSV files, PUT, COPY INTO), so each type's
// exact values pass through the file format; the INSERT path of small units is covered by the
// target and CLI tests, which run at the default threshold.
const engines: { name: string; start: () => Promise<Engine> }[] = [
  { name: "emulator, PUT + COPY", start: () => emulatorEngine({ bulk_load_rows: 0 }) },
];
if (typeof real === "string") {
  describe("snowflake (real account)", () => {
    it.skip(`skipped: ${real}`, () => {});
  });
  console.log(`snowflake conformance against a real account skipped: ${real}`);
} else engines.push({ name: real.name, start: async () => real });

for (const { name, start } of engines) {
  let engine: Engine;
  let reader: SnowflakeSession;
  const ready = (async () => {
    engine = await start();
    reader = await openSession(engine);
  })();
  beforeAll(() => ready);
  afterAll(async () => {
    await reader?.close();
    await engine?.stop();
  });

  describeTargetConformance(`snowflake (${name})`, {
    readsNewestRunLog: true,
    skips: {},
    async connect(): Promise<TargetFixture> {
      await ready;
      const schema = freshSchema();
      const target = await SnowflakeTarget.open(engine.settings);
      return {
        target,
        schema,
        async readAll(ref) {
          const columns = await target.columns(ref);
          if (!columns) return null;
          const select = columns.map((c) => `${readExpression(c)} AS ${quoteIdent(c.name)}`);
          const rows = await reader.run(`SELECT ${select.join(", ")} FROM ${qualifiedTable(ref)}`);
          return rows.map((row) => Object.fromEntries(columns.map((c) => [c.name, readValue(c, row[c.name] ?? null)])));
        },
        async cleanup() {
          const rows = await reader.run(
            `SELECT "SCHEMA_NAME" AS "name" FROM ${quoteIdent(engine.settings.database)}."INFORMATION_SCHEMA"."SCHEMATA" WHERE STARTSWITH("SCHEMA_NAME", ?)`,
            [schema],
          );
          for (const row of rows) await reader.run(`DROP SCHEMA IF EXISTS ${quoteIdent(String(row.name))} CASCADE`);
        },
      };
    },
  });
}

function readExpression(column: CatalogColumn): string {
  const c = quoteIdent(column.name);
  switch (column.dataType.toUpperCase()) {
    case "NUMBER":
    case "BOOLEAN":
      return `TO_VARCHAR(${c})`;
    case "DATE":
      return `TO_VARCHAR(${c}, 'YYYY-MM-DD')`;
    case "TIME":
      return `TO_VARCHAR(${c}, 'HH24:MI:SS.FF6')`;
    case "TIMESTAMP_NTZ":
    case "TIMESTAMP_TZ":
    case "TIMESTAMP_LTZ":
      return `TO_VARCHAR(DATE_PART(EPOCH_MICROSECOND, ${c}))`;
    case "BINARY":
      return `HEX_ENCODE(${c})`;
    case "VARIANT":
    case "ARRAY":
    case "OBJECT":
      return `TO_JSON(${c})`;
    default:
      return c;
  }
}

/** JSON text with integers past 2^53 kept as digit strings (JSON.parse would round them); floats' spellings. */
function readValue(column: CatalogColumn, value: string | null): unknown {
  if (value === null) return null;
  const type = column.dataType.toUpperCase();
  if (type === "FLOAT") return { inf: "Infinity", "-inf": "-Infinity", nan: "NaN" }[value.toLowerCase()] ?? value;
  if (type === "ARRAY") return JSON.parse(value.replace(/(?<=[[,]\s*)(-?\d{16,})(?=\s*[,\]])/g, '"$1"'));
  return value;
}
