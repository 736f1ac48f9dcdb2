import { describeTargetConformance, type TargetFixture } from "@sqlload/conformance";
import type { Column, CommitUnitOptions, LogicalType, TargetConnection, TargetTableRef } from "@sqlload/core";
import { afterAll } from "vitest";
import { qualifiedTable, quoteIdent } from "../src/clickhouse-dialect.js";
import type { ClickHouseSession } from "../src/clickhouse-session.js";
import { parseClickHouseType, unwrapType } from "../src/clickhouse-types.js";
import { engines, freshDatabase } from "./harness.js";

/**
 * The published target suite (@sqlload/conformance) against ClickHouse, once per engine. The
 * harness reads tables back with a session of its own and knows the logical type of every column
 * the suite wrote, so bytes (kept in String, which cannot tell them from text) read back as hex.
 */
for (const engine of engines()) {
  let reader: ClickHouseSession | undefined;
  afterAll(async () => {
    await reader?.release();
    engine.cleanup();
  });

  describeTargetConformance(`clickhouse (${engine.name})`, {
    readsNewestRunLog: true,
    skips: {
      "temporal.wideRange": "Date32 and DateTime64 hold 1900-01-01 … 2299-12-31 only",
      "type.list": "an Array cannot be Nullable in ClickHouse: a NULL list reads back as an empty array",
    },
    async connect(): Promise<TargetFixture> {
      reader ??= await engine.session();
      const session = reader;
      const schema = freshDatabase();
      const written = new Map<string, Map<string, LogicalType>>();
      const remember = (ref: TargetTableRef, columns: readonly Column[]) => {
        const key = `${ref.schema}.${ref.name}`;
        const known = written.get(key) ?? new Map<string, LogicalType>();
        for (const c of columns) known.set(c.name, c.type);
        written.set(key, known);
      };
      const inner = await engine.open();
      const target: TargetConnection = {
        capabilities: inner.capabilities,
        describeTable: (ref) => inner.describeTable(ref),
        maxCursor: (ref, column, kind) => inner.maxCursor(ref, column, kind),
        ensureTable: (ref, columns, options) => {
          remember(ref, columns);
          return inner.ensureTable(ref, columns, options);
        },
        begin: async (ref, options: CommitUnitOptions) => {
          remember(ref, options.columns);
          const unit = await inner.begin(ref, options);
          return {
            deleteRange: (range, o) => unit.deleteRange(range, o),
            write: (batch) => {
              remember(ref, batch.schema);
              return unit.write(batch);
            },
            appendRunLog: (row) => unit.appendRunLog(row),
            commit: () => unit.commit(),
            abort: () => unit.abort(),
          };
        },
        publish: (ref) => inner.publish(ref),
        discard: (ref) => inner.discard(ref),
        readRunLog: (ref, options) => inner.readRunLog(ref, options),
        lockTable: (ref) => inner.lockTable(ref),
        close: () => inner.close(),
      };
      return {
        target,
        schema,
        async readAll(ref) {
          const columns = await session.query<{ name: string; type: string }>(
            "SELECT name, type FROM system.columns WHERE database = {db:String} AND table = {t:String} ORDER BY position",
            { db: ref.schema, t: ref.name },
          );
          if (columns.length === 0) return null;
          const types = written.get(`${ref.schema}.${ref.name}`);
          const select = columns.map(
            (c) => `${readExpression(quoteIdent(c.name), c.type, types?.get(c.name))} AS ${quoteIdent(c.name)}`,
          );
          const rows = await session.query<Record<string, unknown>>(`SELECT ${select.join(", ")} FROM ${qualifiedTable(ref)}`);
          return rows.map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, denormal(v)])));
        },
        async cleanup() {
          const databases = await session.query<{ name: string }>(
            "SELECT name FROM system.databases WHERE startsWith(name, {prefix:String})",
            { prefix: schema },
          );
          for (const db of databases) await session.command(`DROP DATABASE IF EXISTS ${quoteIdent(db.name)} SYNC`);
        },
      };
    },
  });
}

/**
 * A column as the suite's normalizer reads it: timestamps as microseconds (whatever the zone),
 * floats as text (JSON has no NaN or infinities), bytes as hex; lists element by element.
 */
function readExpression(column: string, typeText: string, logical: LogicalType | undefined): string {
  const { type } = unwrapType(parseClickHouseType(typeText));
  switch (type.name) {
    case "DateTime64":
      return `toString(toUnixTimestamp64Micro(${column}))`;
    case "Float32":
    case "Float64":
      return `toString(${column})`;
    case "String":
      return logical?.kind === "bytes" ? `hex(${column})` : column;
    case "Array": {
      const element = logical?.kind === "list" ? logical.element : undefined;
      const inner = readExpression("x", String(typeText.slice(typeText.indexOf("(") + 1, -1)), element);
      return inner === "x" ? column : `arrayMap(x -> ${inner}, ${column})`;
    }
    default:
      return column;
  }
}

/** ClickHouse prints `inf`, `-inf` and `nan`; the normalizer reads JavaScript's spelling. */
function denormal(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(denormal);
  if (value === "inf" || value === "+inf") return "Infinity";
  if (value === "-inf") return "-Infinity";
  if (value === "nan" || value === "-nan") return "NaN";
  return value;
}
