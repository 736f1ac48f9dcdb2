import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requestMatching } from "../failure-injection.js";
import { BigQueryEmulator } from "./bigquery-emulator.js";

/** The fields of REST responses these tests read. */
interface Wire {
  status?: { errorResult?: { reason: string; message: string } };
  error?: { errors: { reason: string }[] };
  totalRows?: string;
  rows?: { f: { v: unknown }[] }[];
  pageToken?: string;
}

/** The REST API as any client speaks it; the official client's use is tested by the BigQuery connector. */
describe("BigQueryEmulator", () => {
  let emulator: BigQueryEmulator;
  const base = () => `${emulator.endpoint}/bigquery/v2/projects/p`;
  const api = async (method: string, path: string, body?: unknown, token = "t") => {
    const response = await fetch(`${base()}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, json: (await response.json()) as Wire };
  };
  let jobs = 0;
  const query = async (sql: string, params: { name: string; type: string; value: string }[] = []) => {
    const jobId = `job${++jobs}`;
    const { json } = await api("POST", "/jobs", {
      jobReference: { jobId },
      configuration: {
        query: {
          query: sql,
          useLegacySql: false,
          parameterMode: "NAMED",
          queryParameters: params.map((p) => ({
            name: p.name,
            parameterType: { type: p.type },
            parameterValue: { value: p.value },
          })),
        },
      },
    });
    return { job: json, jobId, error: json.status?.errorResult?.message };
  };
  const rows = async (jobId: string, extra = "") => (await api("GET", `/queries/${jobId}?maxResults=1000${extra}`)).json;
  const table = (id: string, fields: unknown[], extra: Record<string, unknown> = {}) =>
    api("POST", "/datasets/d/tables", { tableReference: { tableId: id }, schema: { fields }, ...extra });

  beforeAll(async () => {
    emulator = await BigQueryEmulator.start();
    await api("POST", "/datasets", { datasetReference: { datasetId: "d" } });
    await table("t", [
      { name: "id", type: "INT64", mode: "REQUIRED" },
      { name: "c", type: "STRING" },
    ]);
  });
  afterAll(() => emulator.stop());

  it("refuses a request without credentials", async () => {
    const response = await fetch(`${base()}/datasets/d`);
    expect(response.status).toBe(401);
  });

  it("rejects a statement it does not understand, before running any of the script", async () => {
    const { error } = await query("BEGIN TRANSACTION; DELETE FROM `d`.`t` WHERE TRUE; DROP TABLE `d`.`t`; COMMIT TRANSACTION");
    expect(error).toMatch(/does not understand this statement: DROP TABLE/);
  });

  it("fails DDL inside a transaction and rolls the transaction back", async () => {
    await query("DELETE FROM `d`.`t` WHERE TRUE");
    await table("src", [{ name: "id", type: "INT64" }]);
    const { error } = await query(
      "BEGIN TRANSACTION; INSERT INTO `d`.`t` (`id`) SELECT `id` FROM `d`.`src`; CREATE OR REPLACE TABLE `d`.`x` COPY `d`.`src`; COMMIT TRANSACTION",
    );
    expect(error).toMatch(/not supported inside transactions/);
    expect((await emulator.database.query('SELECT count(*) FROM "d"."x"').catch((e: Error) => e)) instanceof Error).toBe(true);
  });

  it("fails a script that leaves its transaction open, keeping nothing of it", async () => {
    const { error } = await query("BEGIN TRANSACTION; DELETE FROM `d`.`t` WHERE `id` = @id", [
      { name: "id", type: "INT64", value: "1" },
    ]);
    expect(error).toMatch(/not committed/);
  });

  it("returns INT64 as strings and pages results", async () => {
    await emulator.database.query(`INSERT INTO "d"."t" SELECT 9007199254740993 + g, 'x' FROM range(2500) r(g)`);
    const { jobId } = await query("SELECT * FROM `d`.`t`");
    const first = await rows(jobId);
    expect(first.totalRows).toBe("2500");
    expect(first.rows).toHaveLength(1000);
    expect(first.rows?.[0]?.f[0]?.v).toBe("9007199254740993");
    const third = await rows(jobId, "&pageToken=2000");
    expect(third.rows).toHaveLength(500);
    expect(third.pageToken).toBeUndefined();
    await query("DELETE FROM `d`.`t` WHERE TRUE");
  });

  it("orders CAST(x AS BYTES) by UTF-8 bytes under an und:ci collation that orders text otherwise", async () => {
    await table("ci", [{ name: "c", type: "STRING", collation: "und:ci" }]);
    await emulator.database.query(`INSERT INTO "d"."ci" VALUES ('B'), ('a')`);
    const bytes = await query("SELECT CAST(MAX(CAST(`c` AS BYTES)) AS STRING) AS v FROM `d`.`ci`");
    expect((await rows(bytes.jobId)).rows?.[0]?.f[0]?.v).toBe("a");
    const plain = await query("SELECT CAST(MAX(`c`) AS STRING) AS v FROM `d`.`ci`");
    expect((await rows(plain.jobId)).rows?.[0]?.f[0]?.v).toBe("B");
  });

  it("drops a table once it expired", async () => {
    await table("gone", [{ name: "id", type: "INT64" }], { expirationTime: String(Date.now() + 60_000) });
    expect((await api("GET", "/datasets/d/tables/gone")).status).toBe(200);
    // The clock moves past the expiry (set back rather than waited for, so a loaded machine cannot race it).
    const resource = await emulator.catalog.requireTable("d", "gone");
    resource.expirationTime = String(Date.now() - 1);
    expect((await api("GET", "/datasets/d/tables/gone")).status).toBe(404);
  });

  it("refuses an INT64 sent as a JSON number beyond 2^53 in a load", async () => {
    const boundary = "b";
    const job = {
      configuration: {
        load: {
          destinationTable: { datasetId: "d", tableId: "t" },
          sourceFormat: "NEWLINE_DELIMITED_JSON",
          writeDisposition: "WRITE_APPEND",
        },
      },
    };
    const body = `--${boundary}\r\nContent-Type: application/json\r\n\r\n${JSON.stringify(job)}\r\n--${boundary}\r\nContent-Type: application/octet-stream\r\n\r\n{"id": 9007199254740993}\n\r\n--${boundary}--\r\n`;
    const response = await fetch(`${emulator.endpoint}/upload/bigquery/v2/projects/p/jobs?uploadType=multipart`, {
      method: "POST",
      headers: { authorization: "Bearer t", "content-type": `multipart/related; boundary=${boundary}` },
      body,
    });
    const resource = (await response.json()) as { status: { errorResult?: { message: string } } };
    expect(resource.status.errorResult?.message).toMatch(/beyond 2\^53: send integers as strings/);
  });

  it("fails any request on demand, in BigQuery's error shape", async () => {
    emulator.failures.failNext(requestMatching({ operation: "tables.get" }), "Backend error", {
      status: 503,
      reason: "backendError",
    });
    const { status, json } = await api("GET", "/datasets/d/tables/t");
    expect(status).toBe(503);
    expect(json.error?.errors[0]?.reason).toBe("backendError");
    emulator.failures.failNext(requestMatching({ operation: "jobs.insert", shape: "delete_range" }), "Exceeded rate limits", {
      reason: "rateLimitExceeded",
    });
    const { job } = await query("DELETE FROM `d`.`t` WHERE TRUE");
    expect(job.status?.errorResult).toMatchObject({ reason: "rateLimitExceeded", message: "Exceeded rate limits" });
  });

  it("runs a held job whose client hung up only when it was held by holdNext, never by holdNextUnsent", async () => {
    const send = (jobId: string, signal: AbortSignal) =>
      fetch(`${base()}/jobs`, {
        method: "POST",
        headers: { authorization: "Bearer t", "content-type": "application/json" },
        body: JSON.stringify({
          jobReference: { jobId },
          configuration: { query: { query: "SELECT CAST(MAX(`id`) AS STRING) AS v FROM `d`.`t` WHERE `id` >= 5" } },
        }),
        signal,
      }).catch(() => undefined);
    for (const [hold, runs] of [
      [(m: Parameters<typeof emulator.holdNextUnsent>[0]) => emulator.holdNextUnsent(m), false],
      [(m: Parameters<typeof emulator.holdNextUnsent>[0]) => emulator.failures.holdNext(m), true],
    ] as const) {
      const jobId = `hung_${runs}`;
      const held = hold(requestMatching({ operation: "jobs.insert", shape: "max" }));
      const abort = new AbortController();
      const sent = send(jobId, abort.signal);
      await held;
      abort.abort();
      await sent;
      await new Promise((resolve) => setTimeout(resolve, 50));
      emulator.failures.releaseHeld();
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect((await api("GET", `/jobs/${jobId}`)).status).toBe(runs ? 200 : 404);
    }
  });
});
