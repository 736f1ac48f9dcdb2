import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isSqlloadError } from "@sqlload/core";
import { requestMatching } from "@sqlload/testing/emulator";
import { BigQueryEmulator } from "@sqlload/testing/emulator/bigquery";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTarget } from "./harness.js";

// Credentials never reach a message: neither a key file's private key nor an access token.
describe("BigQuery credentials in errors (emulator)", () => {
  let emulator: BigQueryEmulator;
  const dir = mkdtempSync(join(tmpdir(), "sqlload-bigquery-key-"));
  const KEY_BODY = "MIIBVgIBADANBgkqhkiG9w0BAQEFAASCAUAwggE8AgEAAkEAnotarealkeybutsecret";
  beforeAll(async () => {
    emulator = await BigQueryEmulator.start();
  });
  afterAll(async () => {
    await emulator.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const failure = async (work: () => Promise<unknown>) => {
    const error = await work().then(
      () => undefined,
      (e: unknown) => e,
    );
    if (!isSqlloadError(error)) throw new Error(`expected a SqlloadError, got ${String(error)}`);
    return error;
  };

  it("fails with a key file that cannot sign as an authentication failure, naming neither the key nor its text", async () => {
    const keyfile = join(dir, "key.json");
    writeFileSync(
      keyfile,
      JSON.stringify({
        type: "service_account",
        project_id: "p",
        private_key_id: "k1",
        private_key: `-----BEGIN PRIVATE KEY-----\n${KEY_BODY}\n-----END PRIVATE KEY-----\n`,
        client_email: "loader@p.iam.gserviceaccount.com",
        client_id: "1",
        token_uri: `${emulator.endpoint}/token`,
      }),
    );
    const target = await openTarget({ project: "p", api_endpoint: emulator.endpoint, keyfile });
    const error = await failure(() => target.describeTable({ schema: "raw", name: "t" }));
    expect(error).toMatchObject({ code: "SL309", retryable: false });
    const shown = `${error.message}\n${error.hint ?? ""}\n${JSON.stringify(error)}`;
    expect(shown).not.toContain(KEY_BODY);
    expect(shown).not.toContain("PRIVATE KEY-----");
  });

  it("reports a refused token as an authentication failure (SL309, not retried) without the token", async () => {
    const token = "ya29.a0-very-secret-token";
    const target = await openTarget({ project: "p", api_endpoint: emulator.endpoint, access_token: token });
    // A server that echoes the credential it refused (proxies do): the message is scrubbed.
    emulator.failures.failNext(requestMatching({ operation: "tables.get" }), `Invalid Credentials for Bearer ${token}`, {
      status: 401,
      reason: "authError",
    });
    const error = await failure(() => target.describeTable({ schema: "raw", name: "t" }));
    expect(error).toMatchObject({ code: "SL309", retryable: false });
    expect(`${error.message}\n${error.hint ?? ""}`).not.toContain(token);
    expect(error.hint).toMatch(/credentials/);
  });
});
