import { Socket } from "node:net";
import { type PostgresInstance, startPostgres } from "@sqlload/testing";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostgresConnection } from "../src/postgres-connection.js";
import { batchesOf, collect, openSource, readRequest, tableRequest } from "./harness.js";

// `sslmode=prefer`, the default, as libpq means it: TLS where the server has it, else plain text,
// in one connection either way. pg alone fails on a server without TLS; the connector takes over
// pg's reading of the server's answer (src/prefer-tls.ts), which these tests guard.

let plain: PostgresInstance;
let tls: PostgresInstance;
const ROWS = 30_000;

beforeAll(async () => {
  [plain, tls] = await Promise.all([startPostgres(), startPostgres({ tls: true })]);
  for (const server of [plain, tls]) {
    const sql = new pg.Client({ connectionString: server.url });
    await sql.connect();
    await sql.query(`CREATE TABLE t AS SELECT g AS id, md5(g::text) AS v FROM generate_series(1, ${ROWS}) g`);
    await sql.end();
  }
});

afterAll(async () => {
  await Promise.all([plain?.stop(), tls?.stop()]);
});

/** How many TCP connections `body` opens. */
async function connectionsMade(body: () => Promise<void>): Promise<number> {
  let made = 0;
  const original = Socket.prototype.connect;
  Socket.prototype.connect = function (this: Socket, ...args: unknown[]) {
    made++;
    return (original as (...a: unknown[]) => Socket).apply(this, args);
  } as typeof original;
  try {
    await body();
  } finally {
    Socket.prototype.connect = original;
  }
  return made;
}

async function usesTls(connection: PostgresConnection): Promise<boolean> {
  const client = await connection.acquire();
  try {
    const result = await client.query<{ ssl: boolean }>("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()");
    return result.rows[0]?.ssl === true;
  } finally {
    client.release();
  }
}

/** Reads table t through the source connector, as a load does (COPY, binary). */
async function readAll(url: string): Promise<number> {
  const source = await openSource(url);
  try {
    const request = tableRequest("public.t");
    const reader = await source.openTable(request, await source.describeTable(request));
    try {
      return batchesOf(await collect(reader.read(readRequest({ ordered: false, includeNulls: true })))).reduce(
        (n, b) => n + b.length,
        0,
      );
    } finally {
      await reader.close();
    }
  } finally {
    await source.close();
  }
}

describe("sslmode=prefer", () => {
  it("goes on in plain text on the same connection when the server has no TLS", async () => {
    const connection = new PostgresConnection({ url: plain.url });
    try {
      let tlsUsed: boolean | undefined;
      // One connection, where a refused TLS request cost a second.
      expect(await connectionsMade(async () => void (tlsUsed = await usesTls(connection)))).toBe(1);
      expect(tlsUsed).toBe(false);
      const dedicated = await connection.dedicated();
      expect((await dedicated.query("SELECT 1 AS one")).rows).toEqual([{ one: 1 }]);
      await dedicated.end();
    } finally {
      await connection.end();
    }
    expect(await readAll(plain.url)).toBe(ROWS);
  });

  it("uses TLS where the server has it, for queries and for a table's COPY", async () => {
    const connection = new PostgresConnection({ url: tls.url });
    try {
      expect(await connectionsMade(async () => expect(await usesTls(connection)).toBe(true))).toBe(1);
      const dedicated = await connection.dedicated();
      const ssl = await dedicated.query("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()");
      expect(ssl.rows).toEqual([{ ssl: true }]);
      await dedicated.end();
    } finally {
      await connection.end();
    }
    expect(await readAll(tls.url)).toBe(ROWS);
  });

  it("leaves the other modes to pg: require insists on TLS, disable never asks", async () => {
    const required = new PostgresConnection({ url: tls.url, sslmode: "require" });
    const disabled = new PostgresConnection({ url: tls.url, sslmode: "disable" });
    try {
      expect(await usesTls(required)).toBe(true);
      expect(await usesTls(disabled)).toBe(false);
    } finally {
      await Promise.all([required.end(), disabled.end()]);
    }
    const refused = new PostgresConnection({ url: `${plain.url}?sslmode=require` });
    try {
      await expect(refused.acquire()).rejects.toThrow(/does not support SSL/);
    } finally {
      await refused.end();
    }
  });
});
