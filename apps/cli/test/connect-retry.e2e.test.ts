import { mkdirSync, writeFileSync } from "node:fs";
import { createServer, type Server, Socket } from "node:net";
import { join } from "node:path";
import { type PostgresInstance, startPostgres } from "@sqlload/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sqlload, tempDir } from "./cli.js";

// SPEC §8, §13: connections are retried with backoff before a table is skipped (exit 75);
// authentication failures are never retried. Against a real Postgres, stopped or not yet listening.
let server: PostgresInstance;

beforeAll(async () => {
  server = await startPostgres();
});
afterAll(async () => {
  await server?.stop();
});

/** A port of 127.0.0.1 with nothing listening on it. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const port = (probe.address() as { port: number }).port;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** A project loading a TypeScript table into `target` (TOML lines of [target]). */
function project(target: string, extraSource = ""): string {
  const dir = tempDir("sqlload-retry-");
  mkdirSync(join(dir, "sources"));
  writeFileSync(
    join(dir, "sources", "t.ts"),
    `import { source } from "sqlload";\nexport const items = source("t").table({ columns: { id: "bigint" } }, async function* items() { yield { id: 1 }; });\n`,
  );
  writeFileSync(
    join(dir, "sqlload.toml"),
    `[target]\n${target}\n\n[sources.t]\nconnector = "typescript"\nmodule = "sources/t.ts"\n${extraSource}`,
  );
  return dir;
}

async function timed(args: string[], dir: string) {
  const started = Date.now();
  const result = await sqlload(args, { cwd: dir });
  return { ...result, seconds: (Date.now() - started) / 1000 };
}

describe("connection retries", () => {
  it("retries a target that refuses connections, then skips the table with exit 75 naming the attempts", async () => {
    const port = await freePort();
    const dir = project(
      `connector = "postgres"\nurl = "postgresql://postgres@127.0.0.1:${port}/postgres"\nconnect_retries = 2\nconnect_timeout = "2s"`,
    );
    const result = await timed(["load"], dir);
    expect(result.code, result.stderr).toBe(75);
    expect(result.stderr).toContain("skipped raw.t__items: SL308");
    expect(result.stderr).toMatch(/gave up after 3 attempts over [0-9.]+s/);
    // Two pauses of at least half their backoff step: 2s / 3 * (1 + 2) / 2 = 1s.
    expect(result.seconds).toBeGreaterThan(0.9);
  });

  it("retries a source that is stopped, then skips its table with exit 75", async () => {
    const stopped = await startPostgres();
    const url = stopped.url;
    await stopped.stop();
    const dir = tempDir("sqlload-retry-");
    writeFileSync(
      join(dir, "sqlload.toml"),
      `[target]\npath = "w.duckdb"\n\n[sources.app]\nconnector = "postgres"\nurl = "${url}"\nconnect_retries = 1\nconnect_timeout = "1s"\n\n[sources.app.tables."public.orders"]\ncursor_column = "id"\n`,
    );
    const result = await timed(["load"], dir);
    expect(result.code, result.stderr).toBe(75);
    expect(result.stderr).toContain("skipped raw.app__orders");
    expect(result.stderr).toMatch(/source app: gave up after 2 attempts/);
  });

  it("connects once the server starts listening within connect_timeout, and loads", async () => {
    const port = await freePort();
    const dir = project(
      `connector = "postgres"\nurl = "postgresql://postgres@127.0.0.1:${port}/postgres"\nconnect_retries = 8\nconnect_timeout = "20s"`,
    );
    // The server "comes up" after 1.5 s: a forwarder to the real Postgres starts listening on the port.
    let forwarder: Server | undefined;
    const timer = setTimeout(() => {
      forwarder = createServer((client) => {
        const upstream = new Socket();
        upstream.connect(server.port, "127.0.0.1");
        client.pipe(upstream).pipe(client);
        client.on("error", () => upstream.destroy());
        upstream.on("error", () => client.destroy());
      }).listen(port, "127.0.0.1");
    }, 1500);
    try {
      const result = await timed(["load"], dir);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toContain("loaded raw.t__items 1 rows");
      expect(result.seconds).toBeGreaterThan(1.4);
    } finally {
      clearTimeout(timer);
      await new Promise((resolve) => (forwarder ? forwarder.close(resolve) : resolve(undefined)));
    }
  });

  it("never retries a refused login (an unknown database): one attempt, exit 1", async () => {
    const url = server.url.replace(/\/postgres$/, "/no_such_database");
    const dir = project(`connector = "postgres"\nurl = "${url}"\nconnect_retries = 5\nconnect_timeout = "30s"`);
    const result = await timed(["load"], dir);
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toContain("no_such_database");
    expect(result.stderr).not.toContain("gave up after");
    expect(result.seconds).toBeLessThan(10);
  });
});
