import pg from "pg";
import { to as copyTo } from "pg-copy-streams";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HEADER, TRAILER } from "../src/copy-binary.js";
import { CopyInQuery } from "../src/copy-in-query.js";
import { CopyOutQuery } from "../src/copy-out-query.js";
import { pooledSocket } from "../src/pooled-socket.js";
import type { ReadBuffers } from "../src/read-buffers.js";
import { unframe } from "./copy-messages.js";
import { type Server, startServer } from "./harness.js";

let server: Server;
let url: string;
let sql: pg.Pool;

beforeAll(async () => {
  server = await startServer();
  const db = await server.database("copies");
  url = db.url;
  sql = db.sql;
  await db.sql.query(`
    CREATE TABLE rows AS
      SELECT g AS id, repeat(md5(g::text), CASE WHEN g % 997 = 0 THEN 3000 ELSE 1 END) AS pad
      FROM generate_series(1, 20000) g;
    CREATE FUNCTION noisy(n int) RETURNS int LANGUAGE plpgsql AS $$
      BEGIN IF n % 1000 = 0 THEN RAISE NOTICE 'row %', n; END IF; RETURN n; END $$;
    CREATE FUNCTION fails_at(n int, at int) RETURNS int LANGUAGE plpgsql AS $$
      BEGIN IF n = at THEN RETURN 1 / 0; END IF; RETURN n; END $$;
    CREATE TABLE strict (id int NOT NULL, pad text);`);
}, 60_000);

afterAll(async () => server?.stop());

/** A connection of the pool for `work`; closed after, not reused, so no test leaves one mid-COPY for the next. */
async function withClient<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await sql.connect();
  try {
    return await work(client);
  } finally {
    client.release(true);
  }
}

async function readAllChunks(query: CopyOutQuery): Promise<Buffer[]> {
  const chunks: Buffer[] = [];
  for await (const chunk of query) chunks.push(chunk);
  return chunks;
}

async function readAll(query: CopyOutQuery): Promise<Buffer> {
  return Buffer.concat(await readAllChunks(query));
}

/** The same COPY read through pg-copy-streams, the reference. */
async function reference(client: pg.PoolClient, text: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of client.query(copyTo(text))) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

describe("CopyOutQuery", () => {
  it("yields exactly the CopyData messages, rows of any width, and leaves the connection usable", async () => {
    await withClient(async (client) => {
      const copy = "COPY (SELECT id, pad FROM rows ORDER BY id) TO STDOUT (FORMAT binary)";
      // Small read-ahead: the socket is left unread while the consumer is behind.
      const query = client.query(new CopyOutQuery(copy, 4096));
      const messages = await readAll(query);
      expect(unframe(messages).equals(await reference(client, copy))).toBe(true);
      expect((await client.query("SELECT count(*)::int AS n FROM rows")).rows[0].n).toBe(20000);
      expect(query.rowCount).toBe(20000);
    });
  });

  it("pauses the socket while a slow consumer is behind, and loses nothing when it catches up", async () => {
    await withClient(async (client) => {
      const copy = "COPY (SELECT id, pad FROM rows ORDER BY id) TO STDOUT (FORMAT binary)";
      const query = client.query(new CopyOutQuery(copy, 16_384));
      const socket = (client as unknown as { connection: { stream: import("node:stream").Duplex } }).connection.stream;
      const chunks: Buffer[] = [];
      let pausedSeen = 0;
      for await (const chunk of query) {
        chunks.push(chunk);
        if (socket.isPaused()) pausedSeen++;
        if (chunks.length % 20 === 0) await new Promise((resolve) => setTimeout(resolve, 2));
      }
      expect(pausedSeen).toBeGreaterThan(0);
      expect(unframe(Buffer.concat(chunks)).equals(await reference(client, copy))).toBe(true);
      expect(socket.isPaused()).toBe(false);
      expect((await client.query("SELECT count(*)::int AS n FROM rows")).rows[0].n).toBe(20000);
    });
  });

  it("drops notices sent among the rows", async () => {
    await withClient(async (client) => {
      const copy = "COPY (SELECT noisy(id) FROM rows WHERE id <= 5000 ORDER BY id) TO STDOUT (FORMAT binary)";
      const messages = await readAll(client.query(new CopyOutQuery(copy)));
      expect(unframe(messages).equals(await reference(client, copy))).toBe(true);
      expect((await client.query("SELECT 1 AS one")).rows[0].one).toBe(1);
    });
  });

  it("over reused socket buffers, hands each buffer on as one chunk at most, notices among the rows and all", async () => {
    const client = new pg.Client({ connectionString: url, stream: pooledSocket });
    await client.connect();
    try {
      const copy = "COPY (SELECT noisy(id), pad FROM rows ORDER BY id) TO STDOUT (FORMAT binary)";
      const query = client.query(new CopyOutQuery(copy));
      const chunks = await readAllChunks(query);
      const buffers = query.buffers as ReadBuffers;
      const views = chunks.filter((chunk) => buffers.owns(chunk.buffer));
      expect(views.length).toBeGreaterThan(10);
      // A buffer given back whole must not still back another chunk: the rows after a notice are copied.
      expect(new Set(views.map((chunk) => chunk.buffer)).size).toBe(views.length);
      // The reference reads a socket of its own: pg-copy-streams reads in paused mode, which `onread` bypasses.
      const expected = await withClient((plain) => reference(plain, copy));
      expect(unframe(Buffer.concat(chunks)).equals(expected)).toBe(true);
      // What pg's parser reads after the COPY it reads from copies.
      expect((await client.query("SELECT count(*)::int AS n FROM rows")).rows[0].n).toBe(20000);
    } finally {
      await client.end();
    }
  });

  it("fails with the server's error when the query fails midway, and the connection goes on", async () => {
    await withClient(async (client) => {
      // Rows stream out of the scan before the one that fails.
      const copy = "COPY (SELECT fails_at(id, 15000), pad FROM rows) TO STDOUT (FORMAT binary)";
      let bytes = 0;
      const failure = await (async () => {
        for await (const chunk of client.query(new CopyOutQuery(copy))) bytes += chunk.length;
      })().catch((error: unknown) => error);
      expect(failure).toMatchObject({ code: "22012" });
      expect(bytes).toBeGreaterThan(0);
      expect((await client.query("SELECT 2 AS two")).rows[0].two).toBe(2);
    });
  });

  it("stops when destroyed", async () => {
    const client = new pg.Client({ connectionString: url });
    client.on("error", () => undefined);
    await client.connect();
    try {
      const query = client.query(new CopyOutQuery("COPY rows TO STDOUT (FORMAT binary)"));
      const failure = await (async () => {
        for await (const _ of query) query.destroy(new Error("stopped here"));
      })().catch((error: unknown) => error);
      expect(failure).toMatchObject({ message: "stopped here" });
    } finally {
      client.end().catch(() => undefined);
    }
  });
});

describe("CopyInQuery", () => {
  it("sends the rows of CopyData messages joined, and frames bare data, in one COPY", async () => {
    await withClient(async (client) => {
      const messages = await readAll(
        client.query(new CopyOutQuery("COPY (SELECT id, pad FROM rows WHERE id <= 3000 ORDER BY id) TO STDOUT (FORMAT binary)")),
      );
      // The first message carries the file header with the first row; send the rest as messages.
      const first = 1 + messages.readInt32BE(1);
      const firstRow = messages.subarray(5 + HEADER.length, first);
      await client.query("BEGIN");
      const query = client.query(new CopyInQuery("COPY strict (id, pad) FROM STDIN (FORMAT binary)", 1 << 16));
      await query.write([HEADER, firstRow], false);
      await query.write([messages.subarray(first, messages.length - 7)], true); // without the trailer message
      await query.write([TRAILER], false);
      await query.end();
      expect(query.rowCount).toBe(3000);
      const { rows } = await client.query(
        "SELECT count(*)::int AS n, sum(id)::int AS s, sum(length(pad))::int AS l FROM strict WHERE id <= 3000",
      );
      const expected = await client.query(
        "SELECT count(*)::int AS n, sum(id)::int AS s, sum(length(pad))::int AS l FROM rows WHERE id <= 3000",
      );
      expect(rows[0]).toEqual(expected.rows[0]);
      await client.query("ROLLBACK");
    });
  });

  it("fails with the server's error on a row it refuses, and the transaction rolls back", async () => {
    await withClient(async (client) => {
      await client.query("BEGIN");
      const query = client.query(new CopyInQuery("COPY strict (id, pad) FROM STDIN (FORMAT binary)"));
      const nullId = Buffer.from([0, 2, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 1, 0x78]);
      const failure = await (async () => {
        await query.write([HEADER, nullId, TRAILER], false);
        await query.end();
      })().catch((error: unknown) => error);
      expect(failure).toMatchObject({ code: "23502" });
      await client.query("ROLLBACK");
      expect((await client.query("SELECT count(*)::int AS n FROM strict")).rows[0].n).toBe(0);
    });
  });

  it("drops what it sent when failed on purpose", async () => {
    await withClient(async (client) => {
      await client.query("BEGIN");
      const query = client.query(new CopyInQuery("COPY strict (id, pad) FROM STDIN (FORMAT binary)"));
      const row = Buffer.from([0, 2, 0, 0, 0, 4, 0, 0, 0, 7, 0, 0, 0, 1, 0x78]);
      await query.write([HEADER, row], false);
      await query.fail("stopped on purpose");
      await client.query("ROLLBACK");
      expect((await client.query("SELECT count(*)::int AS n FROM strict")).rows[0].n).toBe(0);
    });
  });
});
