import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SchemaFile } from "./sqlite-files.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "sqlload-sqlite-files-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const count = (file: SchemaFile) => file.read((db) => (db.get("SELECT count(*) AS n FROM t") as { n: number }).n);

describe("SchemaFile", () => {
  it("shows a writer's work to readers only once it is published", async () => {
    const file = new SchemaFile(join(dir, "raw.sqlite"));
    expect(await file.read(() => "read")).toBeUndefined();
    const writer = await file.acquire();
    writer.db.exec("CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1)");
    expect(existsSync(file.path)).toBe(false);
    writer.publish();
    writer.release();
    const next = await file.acquire();
    next.db.exec("INSERT INTO t VALUES (2)");
    expect(await count(file)).toBe(1);
    next.publish();
    next.release();
    expect(await count(file)).toBe(2);
  });

  it("drops the work of a writer released without publishing", async () => {
    const file = new SchemaFile(join(dir, "raw.sqlite"));
    const first = await file.acquire();
    first.db.exec("CREATE TABLE t (x INTEGER)");
    first.publish();
    first.release();
    const aborted = await file.acquire();
    aborted.db.exec("INSERT INTO t VALUES (1)");
    aborted.release();
    expect(await count(file)).toBe(0);
    expect(readdirSync(dir).filter((n) => n.endsWith(".unit") || n.endsWith(".writer"))).toEqual([]);
  });

  it("lets writers of one process take turns", async () => {
    const file = new SchemaFile(join(dir, "raw.sqlite"));
    const setup = await file.acquire();
    setup.db.exec("CREATE TABLE t (x INTEGER)");
    setup.publish();
    setup.release();
    await Promise.all(
      [1, 2, 3].map(async (x) => {
        const writer = await file.acquire();
        writer.db.run("INSERT INTO t VALUES (?)", [x]);
        await new Promise((resolve) => setTimeout(resolve, 5));
        writer.publish();
        writer.release();
      }),
    );
    expect(await count(file)).toBe(3);
  });

  it("takes over the lock and the copy a killed process left behind", async () => {
    const file = new SchemaFile(join(dir, "raw.sqlite"));
    // A pid that surely is not running: a child that has exited.
    const gone = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" }).stdout;
    writeFileSync(`${file.path}.writer`, gone);
    writeFileSync(`${file.path}.0123456789ab.unit`, "half a unit");
    const writer = await file.acquire();
    expect(readdirSync(dir).filter((n) => n.endsWith(".unit"))).toHaveLength(1);
    writer.db.exec("CREATE TABLE t (x INTEGER)");
    writer.publish();
    writer.release();
    expect(await count(file)).toBe(0);
  });

  it("refuses, after waiting, a lock a live process holds (SL306)", async () => {
    const file = new SchemaFile(join(dir, "raw.sqlite"));
    writeFileSync(`${file.path}.writer`, String(process.ppid));
    await expect(file.acquire()).rejects.toMatchObject({ code: "SL306", retryable: true });
  }, 15_000);
});
