import { createRequire } from "node:module";
import { isAbsolute, resolve } from "node:path";
import { defineConnector, SqlloadError } from "@sqlload/core";
import { openClient } from "./bigquery-client.js";
import { BigQueryJobs } from "./bigquery-jobs.js";
import { partitionRangeSetting } from "./bigquery-partition-range.js";
import { BigQueryTarget } from "./bigquery-target.js";

const { version } = createRequire(import.meta.url)("../package.json") as { version: string };

function optionalString(options: Readonly<Record<string, unknown>>, key: string): string | undefined {
  const value = options[key];
  if (value === undefined || value === "") return undefined;
  if (typeof value !== "string") throw new SqlloadError("SL103", `the BigQuery target's \`${key}\` must be a string`);
  return value;
}

/** Labels every job carries; BigQuery allows lowercase keys and values of letters, digits, `_` and `-`. */
function labelsOf(value: unknown): Record<string, string> {
  if (value === undefined) return {};
  if (!value || typeof value !== "object" || Array.isArray(value)) {
    throw new SqlloadError("SL103", "the BigQuery target's `labels` must be a table of strings");
  }
  const labels: Record<string, string> = {};
  for (const [key, v] of Object.entries(value)) {
    if (
      typeof v !== "string" ||
      !/^[\p{Ll}\p{Lo}][\p{Ll}\p{Lo}\p{N}_-]{0,62}$/u.test(key) ||
      !/^[\p{Ll}\p{Lo}\p{N}_-]{0,63}$/u.test(v)
    ) {
      throw new SqlloadError(
        "SL103",
        `the BigQuery target's label ${JSON.stringify(key)} = ${JSON.stringify(v)} is not a valid label`,
        {
          hint: "Label keys start with a lowercase letter; keys and values hold lowercase letters, digits, `_` and `-` (at most 63).",
        },
      );
    }
    labels[key] = v;
  }
  return labels;
}

export default defineConnector({
  manifest: {
    name: "bigquery",
    version,
    description: "BigQuery: a target with load jobs into expiring stages and one multi-statement transaction per commit.",
  },
  configSchema: {
    target: [
      {
        key: "project",
        type: "string",
        required: true,
        description: "The Google Cloud project that runs the jobs and holds the dataset.",
      },
      {
        key: "dataset",
        type: "string",
        description: "The dataset tables land in (default: the target's `schema`); created when missing, in `location`.",
      },
      {
        key: "location",
        type: "string",
        description: "Where jobs run and new datasets are created (`US`, `EU`, `europe-west3`).",
      },
      {
        key: "keyfile",
        type: "string",
        secret: true,
        description:
          'A service account key file, e.g. "${GOOGLE_APPLICATION_CREDENTIALS}"; without it, Application Default Credentials.',
      },
      {
        key: "access_token",
        type: "string",
        secret: true,
        description: "A fixed OAuth access token instead of ADC or a key file (short-lived; for proxies and emulators).",
      },
      { key: "api_endpoint", type: "string", description: "Another API endpoint than https://bigquery.googleapis.com." },
      { key: "labels", type: "table", description: "Labels on every job sqlload runs, for cost attribution." },
      {
        key: "maximum_bytes_billed",
        type: "integer",
        description: "A query that would bill more bytes fails instead of running.",
      },
      {
        key: "partition_by_cursor",
        type: "boolean",
        description:
          "Partition new tables by their cursor: DAY on a date or timestamp, integer ranges on an integer (default true).",
      },
      {
        key: "partition_range",
        type: "table",
        description:
          "The ranges of a new table partitioned by an integer cursor, `{ start, end, interval }` (at most 10,000); chosen from the data otherwise.",
      },
      {
        key: "lock_ttl",
        type: "integer",
        description:
          "Seconds a table's lock row lives unless its run renews it (default 900): how long a killed run blocks the next.",
      },
    ],
    table: [],
  },
  async target(context) {
    const options = context.options;
    const project = optionalString(options, "project");
    if (!project) {
      throw new SqlloadError("SL105", "the BigQuery target needs `project`", {
        hint: 'Add `project = "my-project"` to [target] (the project that runs the jobs).',
      });
    }
    const keyfile = optionalString(options, "keyfile");
    const location = optionalString(options, "location");
    const dataset = optionalString(options, "dataset");
    const maximumBytes = options.maximum_bytes_billed;
    const labels = labelsOf(options.labels);
    const client = openClient({
      project,
      location,
      keyfile: keyfile && !isAbsolute(keyfile) ? resolve(context.projectDir, keyfile) : keyfile,
      apiEndpoint: optionalString(options, "api_endpoint"),
      accessToken: optionalString(options, "access_token"),
    });
    const jobs = new BigQueryJobs(client, {
      location,
      labels,
      ...(maximumBytes !== undefined ? { maximumBytesBilled: String(maximumBytes) } : {}),
    });
    return new BigQueryTarget(jobs, {
      location,
      labels,
      partitionByCursor: options.partition_by_cursor !== false,
      partitionRange: partitionRangeSetting(options.partition_range),
      ...(typeof options.lock_ttl === "number"
        ? { lockTiming: { ttlSeconds: options.lock_ttl, renewMs: Math.max(1000, (options.lock_ttl * 1000) / 3) } }
        : {}),
      ...(dataset ? { datasetFor: (schema: string) => (schema === context.schema ? dataset : schema) } : {}),
    });
  },
  targetCapabilities: BigQueryTarget.capabilities,
});

export { openClient } from "./bigquery-client.js";
export { quoteIdentifier, rangeDialect } from "./bigquery-dialect.js";
export { BigQueryJobs } from "./bigquery-jobs.js";
export { BigQueryTarget, type BigQueryTargetOptions } from "./bigquery-target.js";
export { bigqueryType, columnOf, fieldOf } from "./bigquery-types.js";
export { decodeRows } from "./bigquery-values.js";
