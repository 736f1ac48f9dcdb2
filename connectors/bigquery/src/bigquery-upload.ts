import { randomUUID } from "node:crypto";
import { readFile } from "node:fs/promises";
import type { BigQuery } from "@google-cloud/bigquery";

interface AuthenticatedRequest {
  readonly uri: string;
  /** A plain object or a `Headers`, depending on the auth library's version. */
  readonly headers?: ConstructorParameters<typeof Headers>[0];
}

/** The part of the client's (inherited, untyped for this use) request signer that is used here. */
interface RequestSigner {
  makeAuthenticatedRequest(
    options: Record<string, unknown>,
    callbacks: { onAuthenticated(error: Error | null, request?: AuthenticatedRequest): void },
  ): void;
}

/**
 * Starts a load job from a local file with a multipart upload (`jobs.insert` on the upload
 * endpoint), returning the job resource BigQuery answers with. It is done here rather than by
 * `table.createLoadJob`, which puts every setting under `configuration.load`, so the job could
 * not carry labels (`configuration.labels`). The client still authenticates the request.
 */
export async function uploadLoadJob(
  client: BigQuery,
  job: Record<string, unknown>,
  file: string,
): Promise<Record<string, unknown>> {
  const project = (client as unknown as { projectId: string }).projectId;
  const endpoint = (client as unknown as { apiEndpoint: string }).apiEndpoint;
  const request = await new Promise<AuthenticatedRequest>((resolve, reject) => {
    (client as unknown as RequestSigner).makeAuthenticatedRequest(
      { method: "POST", uri: `${endpoint}/upload/bigquery/v2/projects/${encodeURIComponent(project)}/jobs` },
      { onAuthenticated: (error, authenticated) => (error || !authenticated ? reject(error) : resolve(authenticated)) },
    );
  });
  const boundary = `sqlload-${randomUUID()}`;
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Type: application/json; charset=UTF-8\r\n\r\n${JSON.stringify(job)}\r\n`),
    Buffer.from(`--${boundary}\r\nContent-Type: application/octet-stream\r\n\r\n`),
    await readFile(file),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  const headers = new Headers(request.headers);
  headers.set("Content-Type", `multipart/related; boundary=${boundary}`);
  const response = await fetch(`${request.uri}?uploadType=multipart`, { method: "POST", headers, body });
  const text = await response.text();
  const json = (text ? JSON.parse(text) : {}) as Record<string, unknown> & {
    error?: { message?: string; errors?: unknown[] };
  };
  if (!response.ok) {
    throw Object.assign(new Error(json.error?.message ?? `load upload failed with HTTP ${response.status}`), {
      code: response.status,
      errors: json.error?.errors ?? [],
    });
  }
  return json;
}
