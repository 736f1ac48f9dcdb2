import { writeFileSync } from "node:fs";
import https from "node:https";
import { join } from "node:path";
import tls from "node:tls";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { DatabricksSession } from "../src/databricks-session.js";
import { parseSettings, volumePath } from "../src/databricks-settings.js";
import { putSql, removeSql } from "../src/databricks-staging-sql.js";
import { EmulatedWarehouse, VOLUME } from "./harness.js";

// A target that names its warehouse's CA (`ca_cert`): every request of the driver, the Thrift calls
// and the volume's file transfers, goes through an agent whose sockets share one TLS context
// (databricks-tls.ts), and what is trusted is what the driver would trust.
describe("a Databricks target with ca_cert", () => {
  let warehouse: EmulatedWarehouse;
  beforeAll(async () => {
    warehouse = await EmulatedWarehouse.start();
  });
  afterAll(async () => {
    await warehouse?.close();
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  const open = (options: Record<string, unknown> = {}) =>
    DatabricksSession.open(parseSettings({ ...warehouse.settings("none", { threshold: 1 }), ...options }, warehouse.dir));

  it("sends every request through sockets of one shared TLS context, never the certificates themselves", async () => {
    // Were the driver to make its own agent (a version that no longer asks the client for its
    // connection provider), its requests would carry the certificates as `ca` and make contexts.
    const names = vi.spyOn(https.Agent.prototype, "getName");
    const sessions = [await open(), await open()];
    try {
      for (const session of sessions) {
        expect(await session.query("SELECT 1")).toHaveLength(1);
        const file = join(warehouse.dir, "one.txt");
        writeFileSync(file, "one");
        const path = `${volumePath(VOLUME)}/tls-${Math.random().toString(36).slice(2)}.txt`;
        await session.staging(putSql(file, path), warehouse.dir);
        await session.staging(removeSql(path), warehouse.dir);
      }
    } finally {
      for (const session of sessions) await session.close();
    }
    const asked = names.mock.calls.map(([options]) => (options ?? {}) as Record<string, unknown>);
    expect(asked.length).toBeGreaterThan(4);
    expect(asked.filter((options) => "ca" in options && options.ca !== undefined)).toEqual([]);
    // One context, the same for both sessions' sockets.
    expect(new Set(asked.map((options) => options.secureContext)).size).toBe(1);
    expect(asked[0]?.secureContext).toBeDefined();
  });

  it("still trusts only what the driver would: a warehouse whose CA is not the one named is refused", async () => {
    // A certificate of the right shape that did not sign the emulator's: Node's first root.
    writeFileSync(join(warehouse.dir, "other-ca.pem"), tls.rootCertificates[0] as string);
    const error = await open({ ca_cert: "other-ca.pem" }).then(
      (session) => session.close().then(() => undefined),
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(Error);
    expect(String((error as Error).message) + String((error as { cause?: unknown }).cause)).toMatch(
      /certificate|self[- ]signed|verify/i,
    );
  });
});
