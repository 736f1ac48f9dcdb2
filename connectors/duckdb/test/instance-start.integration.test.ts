import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { bindings } from "../src/duckdb-client.js";
import { openDatabase } from "../src/duckdb-database.js";
import {
  attachedInstanceOptions,
  INSTANCE_OPTIONS,
  targetFileOptions,
  targetFileSettings,
} from "../src/duckdb-instance-options.js";
import { begunWith, startInstance, startTargetInstance } from "../src/duckdb-instance-start.js";
import { duckdbDefaultLimit } from "../src/duckdb-memory-limit.js";

const dir = mkdtempSync(join(tmpdir(), "sqlload-duckdb-start-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const settingsOf = targetFileSettings;

describe("the instance a target's file is attached to", () => {
  it("is made again with the file's own options when the begun one differs", async () => {
    const file = join(dir, "differs.duckdb");
    const options = attachedInstanceOptions(targetFileOptions(settingsOf({})), file, false);
    const other = startInstance(bindings, { ...options, memory_limit: "100MB" });
    const db = await openDatabase("differs.duckdb", dir, "read_write", "target", settingsOf({}), other);
    const connection = await db.connect();
    const limit = (await connection.runAndReadAll("SELECT current_setting('memory_limit')")).getRows()[0]?.[0];
    // DuckDB shows the limit in MiB: 256 MB.
    expect(limit).toBe("244.1 MiB");
    db.disconnect(connection);
    await db.release();
  });

  it("serves an in-memory target and a file this process has open already, which do not take it", async () => {
    const memory = await openDatabase(":memory:", dir, "read_write", "target", settingsOf({}), startInstance(bindings, {}));
    const first = await openDatabase("shared.duckdb", dir, "read_write", "target", settingsOf({}));
    const file = join(dir, "shared.duckdb");
    const begun = startInstance(bindings, attachedInstanceOptions(targetFileOptions(settingsOf({})), file, false));
    const second = await openDatabase("shared.duckdb", dir, "read_write", "target", settingsOf({}), begun);
    const [a, b] = [await first.connect(), await second.connect()];
    await a.run("CREATE TABLE t AS SELECT 42 AS x");
    // One database: what the first wrote, the second reads.
    expect((await b.runAndReadAll("SELECT x FROM t")).getRows()).toEqual([[42]]);
    expect((await (await memory.connect()).runAndReadAll("SELECT 1")).getRows()).toEqual([[1]]);
    for (const db of [memory, first, second]) await db.release();
  });
});

describe("startTargetInstance", () => {
  it("begins nothing for an in-memory target or settings the open refuses", () => {
    expect(startTargetInstance(bindings, { options: { path: ":memory:" }, projectDir: dir })).toBeUndefined();
    expect(startTargetInstance(bindings, { options: { path: "x.duckdb", memory_limit: 5 }, projectDir: dir })).toBeUndefined();
    expect(
      startTargetInstance(bindings, { options: { path: "x.duckdb", storage_version: "1.0" }, projectDir: dir }),
    ).toBeUndefined();
  });

  it("begins the instance with the options the attach uses, DuckDB's own limit where a log is recovered", async () => {
    const context = { options: { path: "same.duckdb", memory_limit: "300MB", row_group_size: 16_384 }, projectDir: dir };
    const begun = startTargetInstance(bindings, context);
    if (!begun) throw new Error("not begun");
    const expected = { ...INSTANCE_OPTIONS, memory_limit: "300MB", temp_directory: `${join(dir, "same.duckdb")}.tmp` };
    expect(begun.options).toEqual(expected);
    expect(begunWith(begun, expected)).toBe(true);
    expect(begunWith(begun, { ...expected, threads: "1" })).toBe(false);
    expect(begunWith(begun, { ...expected, memory_limit: "301MB" })).toBe(false);
    bindings.close_sync(await begun.database);
    // A log to recover, under the default limit (a limit the target sets is kept even then).
    writeFileSync(join(dir, "logged.duckdb.wal"), "");
    const logged = startTargetInstance(bindings, { options: { path: "logged.duckdb" }, projectDir: dir });
    if (!logged) throw new Error("not begun");
    expect(logged.options.memory_limit).toBe(`${Math.floor(duckdbDefaultLimit() / 1e6)}MB`);
    bindings.close_sync(await logged.database);
    const kept = startTargetInstance(bindings, { options: { path: "logged.duckdb", memory_limit: "300MB" }, projectDir: dir });
    expect(kept?.options.memory_limit).toBe("300MB");
    if (kept) bindings.close_sync(await kept.database);
  });
});
