import type { BigQuery } from "@google-cloud/bigquery";
import type { FieldSchema } from "./bigquery-types.js";

/** The parts of a table's REST resource sqlload reads. */
export interface TableMetadata {
  readonly schema?: { readonly fields?: readonly FieldSchema[] };
  readonly defaultCollation?: string;
  readonly etag?: string;
  readonly timePartitioning?: { readonly type: string; readonly field?: string };
  readonly rangePartitioning?: RangePartitioning;
}

/** Integer-range partitioning as the REST API writes it (INT64 values as strings). */
export interface RangePartitioning {
  readonly field: string;
  readonly range: { readonly start: string; readonly end: string; readonly interval: string };
}

/** What a new table is created with (`tables.insert`). */
export interface NewTable {
  readonly fields: readonly FieldSchema[];
  readonly timePartitioning?: { readonly type: string; readonly field: string } | undefined;
  readonly rangePartitioning?: RangePartitioning | undefined;
  readonly clustering?: { readonly fields: readonly string[] } | undefined;
  /** Milliseconds since the epoch after which BigQuery deletes the table by itself. */
  readonly expirationTime?: number | undefined;
  readonly labels?: Readonly<Record<string, string>> | undefined;
}

const notFound = (error: unknown) => (error as { code?: unknown } | null)?.code === 404;
const exists = (error: unknown) => (error as { code?: unknown } | null)?.code === 409;

export async function getTable(client: BigQuery, dataset: string, table: string): Promise<TableMetadata | null> {
  try {
    const [metadata] = await client.dataset(dataset).table(table).getMetadata();
    return metadata as TableMetadata;
  } catch (error) {
    if (notFound(error)) return null;
    throw error;
  }
}

/** The dataset's default collation, or undefined when it has none (or does not exist). */
export async function datasetCollation(client: BigQuery, dataset: string): Promise<string | undefined> {
  try {
    const [metadata] = await client.dataset(dataset).getMetadata();
    return (metadata as { defaultCollation?: string }).defaultCollation || undefined;
  } catch (error) {
    if (notFound(error)) return undefined;
    throw error;
  }
}

/** Creates the dataset in `location` unless it exists (a race with another run is fine). */
export async function ensureDataset(client: BigQuery, dataset: string, location?: string): Promise<void> {
  try {
    await client.dataset(dataset).getMetadata();
  } catch (error) {
    if (!notFound(error)) throw error;
    try {
      await client.createDataset(dataset, location ? { location } : {});
    } catch (raced) {
      if (!exists(raced)) throw raced;
    }
  }
}

/** Creates a table; false when one of that name already exists. */
export async function createTable(client: BigQuery, dataset: string, table: string, spec: NewTable): Promise<boolean> {
  try {
    await client.dataset(dataset).createTable(table, {
      schema: { fields: spec.fields },
      ...(spec.timePartitioning ? { timePartitioning: spec.timePartitioning } : {}),
      ...(spec.rangePartitioning ? { rangePartitioning: spec.rangePartitioning } : {}),
      ...(spec.clustering ? { clustering: spec.clustering } : {}),
      ...(spec.expirationTime !== undefined ? { expirationTime: String(spec.expirationTime) } : {}),
      ...(spec.labels ? { labels: spec.labels } : {}),
    } as never);
    return true;
  } catch (error) {
    if (exists(error)) return false;
    throw error;
  }
}

/** Replaces a table's schema (new columns at the end, NULLABLE), guarded by its etag. */
export async function patchSchema(
  client: BigQuery,
  dataset: string,
  table: string,
  fields: readonly FieldSchema[],
): Promise<void> {
  await client
    .dataset(dataset)
    .table(table)
    .setMetadata({ schema: { fields } } as never);
}

export async function deleteTable(client: BigQuery, dataset: string, table: string): Promise<void> {
  try {
    await client.dataset(dataset).table(table).delete();
  } catch (error) {
    if (!notFound(error)) throw error;
  }
}

/** Names of the dataset's tables that start with one of `prefixes`, from one listing. */
export async function tablesStartingWith(client: BigQuery, dataset: string, prefixes: readonly string[]): Promise<string[]> {
  try {
    const [tables] = await client.dataset(dataset).getTables({ autoPaginate: true });
    return tables.map((t) => t.id ?? "").filter((id) => prefixes.some((prefix) => id.startsWith(prefix)));
  } catch (error) {
    if (notFound(error)) return [];
    throw error;
  }
}
