import { EmulatorError } from "../emulator-error.js";
import type { Field } from "./bigquery-catalog.js";

/** The fields of a `tables.insert` body the emulator knows; BigQuery refuses unknown names. */
const TABLE_KEYS = new Set([
  "tableReference",
  "schema",
  "timePartitioning",
  "rangePartitioning",
  "clustering",
  "expirationTime",
  "labels",
  "defaultCollation",
  "description",
  "friendlyName",
]);
const TIME_KEYS = new Set(["type", "field", "expirationMs", "requirePartitionFilter"]);
/** Which time units may partition a column of each type. */
const TIME_UNITS: Readonly<Record<string, readonly string[]>> = {
  DATE: ["DAY", "MONTH", "YEAR"],
  TIMESTAMP: ["HOUR", "DAY", "MONTH", "YEAR"],
  DATETIME: ["HOUR", "DAY", "MONTH", "YEAR"],
};
/** https://cloud.google.com/bigquery/docs/clustered-tables#limitations */
const CLUSTERABLE = new Set([
  "STRING",
  "INT64",
  "INTEGER",
  "NUMERIC",
  "BIGNUMERIC",
  "DATE",
  "DATETIME",
  "TIMESTAMP",
  "BOOL",
  "BOOLEAN",
  "GEOGRAPHY",
  "RANGE",
]);
const MAX_CLUSTER_FIELDS = 4;
/** BigQuery's limit on the partitions of one table. */
const MAX_PARTITIONS = 10_000n;
const INT64 = /^-?\d{1,19}$/;

const invalid = (message: string) => Object.assign(new EmulatorError("not_allowed", message), { status: 400, reason: "invalid" });

/**
 * Checks a new table's partitioning and clustering against BigQuery's rules (partitioned by a
 * top-level column of a type that unit allows, at most 10,000 integer ranges, not both kinds,
 * at most four clustering columns of clusterable types), and refuses any field of the body the
 * emulator does not know.
 */
export function checkTableSpec(body: Record<string, unknown>, fields: readonly Field[]): void {
  for (const key of Object.keys(body)) {
    if (!TABLE_KEYS.has(key)) throw invalid(`Invalid JSON payload received. Unknown name "${key}" at 'table'`);
  }
  const byName = new Map(fields.map((f) => [f.name.toLowerCase(), f]));
  const column = (name: unknown, what: string): Field => {
    const field = typeof name === "string" ? byName.get(name.toLowerCase()) : undefined;
    if (!field) throw invalid(`The field specified for ${what} cannot be found in the schema: ${String(name)}`);
    if (field.mode === "REPEATED") throw invalid(`The field specified for ${what} cannot be REPEATED: ${field.name}`);
    return field;
  };
  const time = body.timePartitioning as Record<string, unknown> | undefined;
  const range = body.rangePartitioning as { field?: unknown; range?: Record<string, unknown> } | undefined;
  if (time && range) throw invalid("Cannot specify both time partitioning and range partitioning");
  if (time) {
    for (const key of Object.keys(time)) {
      if (!TIME_KEYS.has(key)) throw invalid(`Invalid JSON payload received. Unknown name "${key}" at 'table.time_partitioning'`);
    }
    // Ingestion-time partitioning (no field) is real BigQuery, but sqlload never asks for it.
    if (time.field === undefined) throw new EmulatorError("unsupported", "the emulator partitions by a column only");
    const field = column(time.field, "time partitioning");
    const units = TIME_UNITS[field.type];
    if (!units) throw invalid(`Partitioning field ${field.name} must be DATE, TIMESTAMP or DATETIME, not ${field.type}`);
    if (!units.includes(String(time.type))) {
      throw invalid(`Partitioning by ${String(time.type)} is not allowed on ${field.type} column ${field.name}`);
    }
  }
  if (range) {
    for (const key of Object.keys(range)) {
      if (key !== "field" && key !== "range")
        throw invalid(`Invalid JSON payload received. Unknown name "${key}" at 'table.range_partitioning'`);
    }
    const field = column(range.field, "range partitioning");
    if (field.type !== "INT64" && field.type !== "INTEGER") {
      throw invalid(`Range partitioning field ${field.name} must be INT64, not ${field.type}`);
    }
    const bound = (key: string): bigint => {
      const value = range.range?.[key];
      if (typeof value !== "string" || !INT64.test(value)) {
        throw invalid(`Range partitioning needs range.${key} as an INT64 string, got ${JSON.stringify(value)}`);
      }
      return BigInt(value);
    };
    const [start, end, interval] = [bound("start"), bound("end"), bound("interval")];
    if (interval <= 0n) throw invalid("Range partitioning interval must be positive");
    if (end <= start) throw invalid("Range partitioning end must be greater than start");
    const partitions = (end - start + interval - 1n) / interval;
    if (partitions > MAX_PARTITIONS) {
      throw invalid(`Too many partitions: range partitioning makes ${partitions}, at most ${MAX_PARTITIONS} are allowed`);
    }
  }
  const clustering = body.clustering as { fields?: unknown } | undefined;
  if (clustering) {
    const names = clustering.fields;
    if (!Array.isArray(names) || names.length === 0 || names.length > MAX_CLUSTER_FIELDS) {
      throw invalid(`Clustering needs 1 to ${MAX_CLUSTER_FIELDS} fields`);
    }
    if (new Set(names.map((n) => String(n).toLowerCase())).size !== names.length) throw invalid("Clustering fields repeat");
    for (const name of names) {
      const field = column(name, "clustering");
      if (!CLUSTERABLE.has(field.type)) throw invalid(`Clustering is not supported on ${field.type} column ${field.name}`);
    }
  }
}
