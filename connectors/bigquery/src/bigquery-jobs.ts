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

/**
 * The job id of each attempt. A request that failed before BigQuery answered (a socket error, a
 * 5xx) is sent again with the same id, so a job that did start is found (409) instead of run
 * twice; a job that ran and failed gets a new id, since BigQuery rolled it back.
 */
class JobIds {
  current: string;

  constructor(private readonly prefix: string) {
    this.current = `${prefix}${randomUUID()}`;
  }

  /** After an insert failed: true when the job exists already (409), to be fetched; else throw it. */
  settle(error: unknown): boolean {
    const e = error as { code?: unknown; response?: { jobReference?: unknown } } | null;
    if (e?.response?.jobReference) {
      this.current = `${this.prefix}${randomUUID()}`; // the job ran and failed
      return false;
    }
    return e?.code === 409;
  }

  /** Runs the wait for a job; when the job itself failed, the next attempt is a new job. */
  async track<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if ((error as { jobFailed?: boolean }).jobFailed) this.current = `${this.prefix}${randomUUID()}`;
      throw error;
    }
  }
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
    const ids = new JobIds("sqlload_");
    return withRetries(this.settings.retry ?? DEFAULT_RETRY, async () => {
      const jobId = ids.current;
      const location = this.settings.location ? { location: this.settings.location } : {};
      let job: Job;
      let metadata: JobMetadata;
      try {
        [job, metadata] = (await this.client.createJob({
          configuration,
          jobId,
          ...location,
        } as Parameters<BigQuery["createJob"]>[0])) as unknown as [Job, JobMetadata];
      } catch (error) {
        if (!ids.settle(error)) throw error;
        // An earlier attempt of this id reached BigQuery before its answer was lost: it is that job.
        job = this.client.job(jobId, location);
        [metadata] = (await job.getMetadata()) as unknown as [JobMetadata];
      }
      const done = options.dryRun ? metadata : await ids.track(() => this.wait(job, metadata));
      const bytes = done.statistics?.query?.totalBytesProcessed ?? done.statistics?.totalBytesProcessed;
      const result = options.dryRun ? { fields: [], rows: [] } : await this.results(job);
      return { ...result, ...(bytes !== undefined ? { totalBytesProcessed: BigInt(bytes) } : {}) };
    });
  }

  /** Loads a newline-delimited JSON file into a table (appending) with a load job from an upload, carrying the labels. */
  async loadNdjson(dataset: string, table: string, file: string, schema: readonly FieldSchema[]): Promise<void> {
    const project = (this.client as unknown as { projectId: string }).projectId;
    const ids = new JobIds("sqlload_load_");
    await withRetries(this.settings.retry ?? DEFAULT_RETRY, async () => {
      const jobId = ids.current;
      const location = this.settings.location ? { location: this.settings.location } : {};
      let resource: JobMetadata & { jobReference?: { jobId: string; location?: string } };
      try {
        resource = await uploadLoadJob(
          this.client,
          {
            jobReference: { projectId: project, jobId, ...location },
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
      } catch (error) {
        if (!ids.settle(error)) throw error;
        [resource] = (await this.client.job(jobId, location).getMetadata()) as unknown as [JobMetadata];
      }
      const job = this.client.job(
        jobId,
        resource.jobReference?.location ? { location: resource.jobReference.location } : location,
      );
      await ids.track(() => this.wait(job, resource));
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
        jobFailed: true,
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
