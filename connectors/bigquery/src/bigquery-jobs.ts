import { randomUUID } from "node:crypto";
import type { BigQuery, Job } from "@google-cloud/bigquery";
import { DEFAULT_RETRY, type RetryPolicy, withRetries } from "./bigquery-retry.js";
import type { FieldSchema } from "./bigquery-types.js";
import { uploadLoadJob } from "./bigquery-upload.js";
import { decodeRows, type RawCell } from "./bigquery-values.js";

/** A named query parameter, typed as the REST API takes it (values as strings: exact for INT64). */
export interface QueryParameter {
  readonly type: "STRING" | "INT64" | "BOOL" | "TIMESTAMP" | "DATE";
  readonly value: string | null;
}

export interface QueryResult {
  readonly fields: readonly FieldSchema[];
  readonly rows: readonly Record<string, unknown>[];
  /** What the job scanned (for a dry run, what it would scan). */
  readonly totalBytesProcessed?: bigint | undefined;
}

export interface JobSettings {
  readonly location?: string | undefined;
  /** Labels every job carries (cost attribution in billing exports). */
  readonly labels: Readonly<Record<string, string>>;
  /** Queries that would bill more fail instead of running. */
  readonly maximumBytesBilled?: string | undefined;
  readonly retry?: RetryPolicy | undefined;
  /** Poll interval while a job runs. */
  readonly pollMs?: number | undefined;
}

type JobMetadata = {
  status?: { state?: string; errorResult?: { reason?: string; message?: string }; errors?: unknown[] };
  statistics?: { totalBytesProcessed?: string; query?: { totalBytesProcessed?: string } };
};

/**
 * Jobs as sqlload runs them: every query and load is a job with sqlload's labels, polled until
 * done, its error raised in the client's ApiError shape, and run again with backoff (under a
 * new job id) when BigQuery says a later attempt may pass. A job that failed was rolled back, so
 * running it again is safe even for a commit script.
 */
export class BigQueryJobs {
  constructor(
    readonly client: BigQuery,
    private readonly settings: JobSettings,
  ) {}

  /** Runs a query or a script; `dryRun` only asks how many bytes it would scan. */
  async query(
    sql: string,
    params: Readonly<Record<string, QueryParameter>> = {},
    options: { readonly dryRun?: boolean } = {},
  ): Promise<QueryResult> {
    const queryParameters = Object.entries(params).map(([name, p]) => ({
      name,
      parameterType: { type: p.type },
      parameterValue: p.value === null ? {} : { value: p.value },
    }));
    const configuration = {
      query: {
        query: sql,
        useLegacySql: false,
        ...(queryParameters.length > 0 ? { parameterMode: "NAMED", queryParameters } : {}),
        ...(this.settings.maximumBytesBilled ? { maximumBytesBilled: this.settings.maximumBytesBilled } : {}),
      },
      labels: { ...this.settings.labels },
      ...(options.dryRun ? { dryRun: true } : {}),
    };
    return withRetries(this.settings.retry ?? DEFAULT_RETRY, async () => {
      const [job, metadata] = await this.client.createJob({
        configuration,
        jobId: `sqlload_${randomUUID()}`,
        ...(this.settings.location ? { location: this.settings.location } : {}),
      } as Parameters<BigQuery["createJob"]>[0]);
      const done = options.dryRun ? (metadata as JobMetadata) : await this.wait(job, metadata as JobMetadata);
      const bytes = done.statistics?.query?.totalBytesProcessed ?? done.statistics?.totalBytesProcessed;
      const result = options.dryRun ? { fields: [], rows: [] } : await this.results(job);
      return { ...result, ...(bytes !== undefined ? { totalBytesProcessed: BigInt(bytes) } : {}) };
    });
  }

  /** Loads a newline-delimited JSON file into a table (appending) with a load job from an upload, carrying the labels. */
  async loadNdjson(dataset: string, table: string, file: string, schema: readonly FieldSchema[]): Promise<void> {
    const project = (this.client as unknown as { projectId: string }).projectId;
    await withRetries(this.settings.retry ?? DEFAULT_RETRY, async () => {
      const resource = await uploadLoadJob(
        this.client,
        {
          jobReference: {
            projectId: project,
            jobId: `sqlload_load_${randomUUID()}`,
            ...(this.settings.location ? { location: this.settings.location } : {}),
          },
          configuration: {
            load: {
              destinationTable: { projectId: project, datasetId: dataset, tableId: table },
              sourceFormat: "NEWLINE_DELIMITED_JSON",
              schema: { fields: schema },
              writeDisposition: "WRITE_APPEND",
              createDisposition: "CREATE_NEVER",
            },
            labels: { ...this.settings.labels },
          },
        },
        file,
      );
      const reference = resource.jobReference as { jobId: string; location?: string };
      const job = this.client.job(reference.jobId, reference.location ? { location: reference.location } : {});
      await this.wait(job, resource as JobMetadata);
    });
  }

  private async wait(job: Job, metadata: JobMetadata): Promise<JobMetadata> {
    let current = metadata;
    let delay = this.settings.pollMs ?? 200;
    while (current.status?.state !== "DONE") {
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, 5000);
      [current] = (await job.getMetadata()) as unknown as [JobMetadata];
    }
    const error = current.status?.errorResult;
    if (error) {
      throw Object.assign(new Error(error.message ?? "BigQuery job failed"), {
        errors: current.status?.errors ?? [error],
        reason: error.reason,
      });
    }
    return current;
  }

  private async results(job: Job): Promise<{ fields: FieldSchema[]; rows: Record<string, unknown>[] }> {
    let fields: FieldSchema[] = [];
    const rows: Record<string, unknown>[] = [];
    let pageToken: string | undefined;
    do {
      const [page, , response] = (await job.getQueryResults({
        skipParsing: true,
        autoPaginate: false,
        maxResults: 10_000,
        ...(pageToken ? { pageToken } : {}),
      } as never)) as unknown as [
        { f: { v: RawCell }[] }[],
        unknown,
        { schema?: { fields?: FieldSchema[] }; pageToken?: string },
      ];
      fields = response?.schema?.fields ?? fields;
      rows.push(...decodeRows(fields, page ?? []));
      pageToken = response?.pageToken;
    } while (pageToken);
    return { fields, rows };
  }
}
