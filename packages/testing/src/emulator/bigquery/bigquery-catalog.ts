import type { EmulatorDatabase, EmulatorSession } from "../duckdb-executor.js";
import { EmulatorError } from "../emulator-error.js";
import { checkTableSpec } from "./bigquery-table-spec.js";

/** A field as the REST API describes it. */
export interface Field {
  readonly name: string;
  readonly type: string;
  readonly mode?: string | undefined;
  readonly precision?: string | undefined;
  readonly scale?: string | undefined;
  readonly collation?: string | undefined;
}

/** A table's REST resource, as the emulator keeps it beside the DuckDB table that holds its rows. */
export interface TableResource {
  readonly tableReference: { readonly projectId: string; readonly datasetId: string; readonly tableId: string };
  schema: { fields: Field[] };
  timePartitioning?: unknown;
  rangePartitioning?: unknown;
  clustering?: unknown;
  /** Milliseconds since the epoch, as a string (the API's form). */
  expirationTime?: string | undefined;
  labels?: Record<string, string> | undefined;
  defaultCollation?: string | undefined;
  creationTime: string;
  etag: string;
}

export interface DatasetResource {
  readonly datasetReference: { readonly projectId: string; readonly datasetId: string };
  readonly location: string;
  readonly defaultCollation?: string | undefined;
}

/** `"Odd ""name"""`: DuckDB's quoting. */
export function duckIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

export function duckTable(dataset: string, table: string): string {
  return `${duckIdent(dataset)}.${duckIdent(table)}`;
}

/** BigQuery's rules for dataset ids: letters, digits and underscores, at most 1,024. */
const DATASET_ID = /^[A-Za-z0-9_]{1,1024}$/;
/** Table ids: Unicode letters, marks, numbers, connectors, dashes and spaces, at most 1,024 bytes. */
const TABLE_ID = /^[\p{L}\p{M}\p{N}\p{Pc}\p{Pd} ]{1,1024}$/u;
/** Column names (flexible column names): no quotes, backticks, dots or the other reserved punctuation. */
const COLUMN_NAME = /^[^!"$()*,./;?@[\\\]^`{}~']{1,300}$/u;

/**
 * The DuckDB type that stores a BigQuery field. A STRING under the collation `und:ci` (its own,
 * or the table's or dataset's default) is `VARCHAR COLLATE NOCASE`, so comparisons, MAX and
 * keys ignore case as BigQuery's would, while `CAST(x AS BYTES)` still sees the exact text.
 */
export function duckType(field: Field, defaultCollation?: string): string {
  const base = (() => {
    switch (field.type) {
      case "BOOL":
      case "BOOLEAN":
        return "BOOLEAN";
      case "INT64":
      case "INTEGER":
        return "BIGINT";
      case "FLOAT64":
      case "FLOAT":
        return "DOUBLE";
      case "NUMERIC":
      case "BIGNUMERIC": {
        const precision = Number(field.precision ?? (field.type === "NUMERIC" ? 38 : 76));
        const scale = Number(field.scale ?? (field.type === "NUMERIC" ? 9 : 38));
        if (precision > 38) {
          throw new EmulatorError(
            "unsupported",
            `the emulator stores BIGNUMERIC in DuckDB DECIMAL, at most 38 digits (got ${precision})`,
          );
        }
        return `DECIMAL(${precision}, ${scale})`;
      }
      case "STRING": {
        const collation = field.collation ?? defaultCollation;
        if (!collation) return "VARCHAR";
        if (collation === "und:ci") return "VARCHAR COLLATE NOCASE";
        throw new EmulatorError("unsupported", `the emulator knows the collation 'und:ci' only, not '${collation}'`);
      }
      case "BYTES":
        return "BLOB";
      case "JSON":
        return "JSON";
      case "DATE":
        return "DATE";
      case "TIME":
        return "TIME";
      case "DATETIME":
        return "TIMESTAMP";
      case "TIMESTAMP":
        return "TIMESTAMPTZ";
      default:
        throw new EmulatorError("unsupported", `the emulator does not store fields of type ${field.type}`);
    }
  })();
  if (field.mode === "REPEATED") return `${base}[]`;
  return field.mode === "REQUIRED" ? `${base} NOT NULL` : base;
}

/**
 * Datasets and tables: their REST resources in memory, their rows in DuckDB (a schema per
 * dataset). Tables past their `expirationTime` are dropped when next looked at, as BigQuery
 * deletes them on its own.
 */
export class BigQueryCatalog {
  readonly datasets = new Map<string, DatasetResource>();
  private readonly tables = new Map<string, TableResource>();
  private etags = 0;

  constructor(private readonly database: EmulatorDatabase) {}

  dataset(id: string): DatasetResource | undefined {
    return this.datasets.get(id);
  }

  async createDataset(project: string, id: string, location: string, defaultCollation?: string): Promise<DatasetResource> {
    if (!DATASET_ID.test(id)) throw new EmulatorError("not_allowed", `Invalid dataset ID "${id}"`);
    if (this.datasets.has(id))
      throw Object.assign(new EmulatorError("not_allowed", `Already Exists: Dataset ${project}:${id}`), {
        status: 409,
        reason: "duplicate",
      });
    await this.database.query(`CREATE SCHEMA ${duckIdent(id)}`);
    const resource: DatasetResource = {
      datasetReference: { projectId: project, datasetId: id },
      location,
      ...(defaultCollation ? { defaultCollation } : {}),
    };
    this.datasets.set(id, resource);
    return resource;
  }

  private key(dataset: string, table: string): string {
    return `${dataset}\u0000${table}`;
  }

  async table(dataset: string, table: string): Promise<TableResource | undefined> {
    const resource = this.tables.get(this.key(dataset, table));
    if (resource?.expirationTime && Number(resource.expirationTime) <= Date.now()) {
      await this.drop(dataset, table);
      return undefined;
    }
    return resource;
  }

  async requireTable(dataset: string, table: string): Promise<TableResource> {
    const resource = await this.table(dataset, table);
    if (!resource) {
      const project = this.datasets.get(dataset)?.datasetReference.projectId ?? "project";
      throw Object.assign(new EmulatorError("not_found", `Not found: Table ${project}:${dataset}.${table}`), {
        status: 404,
        reason: "notFound",
      });
    }
    return resource;
  }

  async list(dataset: string): Promise<TableResource[]> {
    const out: TableResource[] = [];
    for (const [key, resource] of [...this.tables]) {
      if (!key.startsWith(`${dataset}\u0000`)) continue;
      const live = await this.table(dataset, resource.tableReference.tableId);
      if (live) out.push(live);
    }
    return out;
  }

  /** `tables.insert`: checks BigQuery's naming rules, then creates the DuckDB table. */
  async create(
    project: string,
    dataset: string,
    body: Partial<TableResource>,
    session?: EmulatorSession,
  ): Promise<TableResource> {
    const id = body.tableReference?.tableId ?? "";
    if (!this.datasets.has(dataset)) {
      throw Object.assign(new EmulatorError("not_found", `Not found: Dataset ${project}:${dataset}`), {
        status: 404,
        reason: "notFound",
      });
    }
    if (!TABLE_ID.test(id))
      throw Object.assign(new EmulatorError("not_allowed", `Invalid table ID "${id}"`), { status: 400, reason: "invalid" });
    if (await this.table(dataset, id)) {
      throw Object.assign(new EmulatorError("not_allowed", `Already Exists: Table ${project}:${dataset}.${id}`), {
        status: 409,
        reason: "duplicate",
      });
    }
    const fields = body.schema?.fields ?? [];
    for (const f of fields) {
      if (!COLUMN_NAME.test(f.name))
        throw Object.assign(new EmulatorError("not_allowed", `Invalid field name "${f.name}"`), {
          status: 400,
          reason: "invalid",
        });
    }
    checkTableSpec(body as Record<string, unknown>, fields);
    const collation = body.defaultCollation ?? this.datasets.get(dataset)?.defaultCollation;
    const columns = fields.map((f) => `${duckIdent(f.name)} ${duckType(f, collation)}`).join(", ");
    const sql = `CREATE TABLE ${duckTable(dataset, id)} (${columns || '"_empty" BOOLEAN'})`;
    await (session ? session.run(sql) : this.database.query(sql));
    const resource: TableResource = {
      tableReference: { projectId: project, datasetId: dataset, tableId: id },
      schema: { fields: fields.map((f) => ({ ...f, mode: f.mode ?? "NULLABLE" })) },
      ...(body.timePartitioning ? { timePartitioning: body.timePartitioning } : {}),
      ...(body.rangePartitioning ? { rangePartitioning: body.rangePartitioning } : {}),
      ...(body.clustering ? { clustering: body.clustering } : {}),
      ...(body.expirationTime ? { expirationTime: String(body.expirationTime) } : {}),
      ...(body.labels ? { labels: body.labels } : {}),
      ...(collation ? { defaultCollation: collation } : {}),
      creationTime: String(Date.now()),
      etag: `e${++this.etags}`,
    };
    this.tables.set(this.key(dataset, id), resource);
    return resource;
  }

  /** `tables.patch` of the schema: BigQuery allows adding NULLABLE or REPEATED fields and relaxing REQUIRED, nothing else. */
  async patchSchema(dataset: string, table: string, fields: readonly Field[]): Promise<TableResource> {
    const resource = await this.requireTable(dataset, table);
    const old = resource.schema.fields;
    const bad = (why: string) =>
      Object.assign(new EmulatorError("not_allowed", `Provided Schema does not match Table: ${why}`), {
        status: 400,
        reason: "invalid",
      });
    for (const [i, f] of old.entries()) {
      const next = fields[i];
      if (!next || next.name !== f.name) throw bad(`field ${f.name} is missing in new schema`);
      if (next.type !== f.type || next.precision !== f.precision || next.scale !== f.scale)
        throw bad(`field ${f.name} has changed type`);
      if ((next.mode ?? "NULLABLE") !== f.mode && !(f.mode === "REQUIRED" && next.mode === "NULLABLE"))
        throw bad(`field ${f.name} has changed mode`);
    }
    for (const [i, f] of fields.entries()) {
      const before = old[i];
      if (!before) {
        if (f.mode === "REQUIRED") throw bad(`new field ${f.name} cannot be REQUIRED`);
        await this.database.query(
          `ALTER TABLE ${duckTable(dataset, table)} ADD COLUMN ${duckIdent(f.name)} ${duckType(f, resource.defaultCollation)}`,
        );
      } else if (before.mode === "REQUIRED" && f.mode === "NULLABLE") {
        await this.database.query(`ALTER TABLE ${duckTable(dataset, table)} ALTER COLUMN ${duckIdent(f.name)} DROP NOT NULL`);
      }
    }
    resource.schema = { fields: fields.map((f) => ({ ...f, mode: f.mode ?? "NULLABLE" })) };
    resource.etag = `e${++this.etags}`;
    return resource;
  }

  /**
   * `CREATE OR REPLACE TABLE t COPY source`: the rows, schema, partitioning and clustering, in
   * one step. As on BigQuery, a table partitioned otherwise than the source is not replaced.
   */
  async copy(session: EmulatorSession, dataset: string, table: string, sourceDataset: string, source: string): Promise<void> {
    const from = await this.requireTable(sourceDataset, source);
    const existing = await this.table(dataset, table);
    const spec = (t: TableResource) => JSON.stringify([t.timePartitioning ?? null, t.rangePartitioning ?? null]);
    if (existing && spec(existing) !== spec(from)) {
      throw new EmulatorError(
        "not_allowed",
        "Cannot replace a table with a different partitioning spec. Instead, DROP the table, and then recreate it.",
      );
    }
    await session.run(`CREATE OR REPLACE TABLE ${duckTable(dataset, table)} AS FROM ${duckTable(sourceDataset, source)}`);
    this.tables.set(this.key(dataset, table), {
      ...from,
      tableReference: { ...from.tableReference, datasetId: dataset, tableId: table },
      schema: { fields: [...from.schema.fields] },
      creationTime: String(Date.now()),
      etag: `e${++this.etags}`,
    });
  }

  async drop(dataset: string, table: string): Promise<boolean> {
    const existed = this.tables.delete(this.key(dataset, table));
    await this.database.query(`DROP TABLE IF EXISTS ${duckTable(dataset, table)}`);
    return existed;
  }
}
