import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostgresConnection } from "../src/postgres-connection.js";
import { type Server, startServer } from "./harness.js";

// The test servers have no TLS, so `sslmode=prefer` (the default) settles on a plain connection.
let server: Server;
let url: string;

beforeAll(async () => {
  server = await startServer();
  url = (await server.database("connection")).url;
});

afterAll(async () => {
  await server?.stop();
});

describe("sslmode=prefer against a server without TLS", () => {
  it("gives every first connection asked for at once (tables loaded together), not only one", async () => {
    const connection = new PostgresConnection({ url });
    try {
      const outcomes = await Promise.allSettled(Array.from({ length: 5 }, () => connection.acquire()));
      expect(outcomes.map((o) => (o.status === "fulfilled" ? "connected" : String(o.reason)))).toEqual(
        Array(5).fill("connected"),
      );
      for (const o of outcomes) if (o.status === "fulfilled") o.value.release();
      // Settled: later connections, pooled and dedicated, go without TLS at once.
      const client = await connection.acquire();
      expect((await client.query<{ ssl: boolean }>("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()")).rows).toEqual([
        { ssl: false },
      ]);
      client.release();
      const dedicated = await connection.dedicated();
      await dedicated.end();
    } finally {
      await connection.end();
    }
  });

  it("refuses TLS when it is required, with the server's own words", async () => {
    const connection = new PostgresConnection({ url, sslmode: "require" });
    try {
      await expect(Promise.all([connection.acquire(), connection.acquire()])).rejects.toThrow(/does not support SSL/);
    } finally {
      await connection.end();
    }
  });
});
