import type { BigQuery } from "@google-cloud/bigquery";
import { BigQueryEmulator } from "@sqlload/testing/emulator/bigquery";
import { openClient } from "../src/bigquery-client.js";
import { qualifiedTable } from "../src/bigquery-dialect.js";
import { BigQueryJobs } from "../src/bigquery-jobs.js";
import type { BigQueryTarget } from "../src/bigquery-target.js";
import connector from "../src/index.js";

// Against the emulator only, the client must never look for cloud credentials (a metadata server).
if (!process.env.SQLLOAD_BIGQUERY_PROJECT) {
  process.env.GCE_METADATA_HOST ??= "127.0.0.1:9";
  process.env.METADATA_SERVER_DETECTION ??= "none";
}

/**
 * Where the tests run: the emulator always; real BigQuery as well when SQLLOAD_BIGQUERY_PROJECT
 * is set (with Application Default Credentials, or GOOGLE_APPLICATION_CREDENTIALS naming a key).
 */
export interface Engine {
  readonly name: string;
  /** `[target]` options, as a project's sqlload.toml would give them. */
  options(): Record<string, unknown>;
  start(): Promise<void>;
  stop(): Promise<void>;
  emulator?: BigQueryEmulator;
}

export function emulatorEngine(): Engine {
  const engine: Engine = {
    name: "emulator",
    options: () => ({ project: "sqlload-test", api_endpoint: engine.emulator?.endpoint, access_token: "emulator-token" }),
    async start() {
      engine.emulator = await BigQueryEmulator.start();
    },
    async stop() {
      await engine.emulator?.stop();
    },
  };
  return engine;
}

export function realEngine(): Engine | { skipped: string } {
  const project = process.env.SQLLOAD_BIGQUERY_PROJECT;
  if (!project) return { skipped: "real BigQuery: SQLLOAD_BIGQUERY_PROJECT is not set" };
  return {
    name: "bigquery",
    options: () => ({
      project,
      ...(process.env.SQLLOAD_BIGQUERY_LOCATION ? { location: process.env.SQLLOAD_BIGQUERY_LOCATION } : {}),
      ...(process.env.GOOGLE_APPLICATION_CREDENTIALS ? { keyfile: process.env.GOOGLE_APPLICATION_CREDENTIALS } : {}),
    }),
    start: async () => {},
    stop: async () => {},
  };
}

export async function openTarget(options: Record<string, unknown>, schema = "raw"): Promise<BigQueryTarget> {
  if (!connector.target) throw new Error("no target");
  return (await connector.target({ options, projectDir: process.cwd(), schema })) as BigQueryTarget;
}

/** A client of its own, to read what was committed as any reader would. */
export function readerFor(options: Record<string, unknown>): BigQueryJobs {
  const client: BigQuery = openClient({
    project: String(options.project),
    apiEndpoint: options.api_endpoint as string | undefined,
    accessToken: options.access_token as string | undefined,
    keyfile: options.keyfile as string | undefined,
  });
  return new BigQueryJobs(client, { labels: { sqlload_test: "reader" }, location: options.location as string | undefined });
}

/** Every row of a table, values exact (see decodeCell); null when the table does not exist. */
export async function readTable(reader: BigQueryJobs, dataset: string, table: string): Promise<Record<string, unknown>[] | null> {
  try {
    await reader.client.dataset(dataset).table(table).getMetadata();
  } catch (error) {
    if ((error as { code?: number }).code === 404) return null;
    throw error;
  }
  const result = await reader.query(`SELECT * FROM ${qualifiedTable(dataset, table)}`);
  return [...result.rows];
}

let datasets = 0;
export function freshDataset(): string {
  return `sqlload_test_${process.pid}_${Date.now() % 1_000_000}_${++datasets}`;
}

/** `[target]` options reaching the emulator, with `extra` on top. */
export function emulatorOptions(emulator: BigQueryEmulator, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { project: "p", api_endpoint: emulator.endpoint, access_token: "t", ...extra };
}

let schemas = 0;
/** A target on a schema (dataset) no other test uses, and the ref of a table `t` in it. */
export async function freshTarget(options: Record<string, unknown>, prefix: string) {
  const schema = `${prefix}_${++schemas}`;
  return { target: await openTarget(options, schema), ref: { schema, name: "t" }, schema };
}
