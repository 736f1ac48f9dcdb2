import { existsSync } from "node:fs";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { createDatabase } from "./create-database.js";
import { startPostgres } from "./start-postgres.js";

describe("startPostgres", () => {
  it("starts a server on a free port, makes databases, and removes everything on stop", async () => {
    const started = Date.now();
    const [a, b] = await Promise.all([startPostgres(), startPostgres()]);
    try {
      expect(a.port).not.toBe(b.port);
      expect(a.url).toBe(`postgresql://postgres@127.0.0.1:${a.port}/postgres`);
      const url = await createDatabase(a.url, 'Odd "db"');
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      const { rows } = await client.query("SELECT current_database() AS db, current_setting('fsync') AS fsync");
      await client.end();
      expect(rows[0]).toEqual({ db: 'Odd "db"', fsync: "off" });
    } finally {
      await a.stop();
      await b.stop();
      await a.stop(); // twice is fine
    }
    expect(existsSync(a.dir)).toBe(false);
    // Generous for a loaded CI machine; about half a second each when warm.
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it("says how to install Postgres when initdb is missing", async () => {
    await expect(startPostgres({ binDir: "/nonexistent" })).rejects.toThrow(/apt-get install -y postgresql/);
  });
});
