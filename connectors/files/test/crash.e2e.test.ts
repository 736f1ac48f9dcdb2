import { once } from "node:events";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { TEST_PAUSE_ENV } from "../src/index.js";
import { ok, project, startCli } from "./e2e.js";
import { targetRows, writeText } from "./harness.js";

// SPEC §6: a crash at any instant loses nothing that committed and duplicates nothing on the
// next run. The files target commits by renaming its manifest; a run killed between writing
// its data files and that rename leaves files no manifest names, which the next run removes.

const table = { schema: "raw", name: "lake__orders" };

function csv(rows: { id: number; v: string; k: number }[]): string {
  return `id,v,k\n${rows.map((r) => `${r.id},${r.v},${r.k}`).join("\n")}\n`;
}

function range(from: number, to: number, v: string) {
  return Array.from({ length: to - from }, (_, i) => ({ id: from + i, v, k: Math.floor((from + i) / 10) }));
}

/** Every file under the table folder except the lease, relative to it. */
function filesOf(dir: string): string[] {
  const root = join(dir, "lake", "raw", "lake__orders");
  const out: string[] = [];
  const walk = (d: string, rel: string) => {
    if (!existsSync(d)) return;
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name), `${rel}${e.name}/`);
      else if (e.name !== "lease.json") out.push(`${rel}${e.name}`);
    }
  };
  walk(root, "");
  return out.sort();
}

function runLogRecords(dir: string): string[] {
  return filesOf(dir)
    .filter((f) => f.startsWith("_sqlload/runs/"))
    .map((f) => f.slice("_sqlload/runs/".length));
}

async function rowsOf(dir: string): Promise<string[]> {
  if (!existsSync(join(dir, "lake/raw/lake__orders/manifest.json"))) return [];
  return (await targetRows(join(dir, "lake"), table, "id")).map((r) => `${r.id}:${r.v}:${r.k}`);
}

const expected = (rows: { id: number; v: string; k: number }[]) => rows.map((r) => `${r.id}:${r.v}:${r.k}`);

/** Starts a load that pauses before its manifest rename, and SIGKILLs it there. */
async function killBeforeManifestRename(dir: string): Promise<void> {
  const child = startCli(["load"], dir, { [TEST_PAUSE_ENV]: "60000" });
  let stderr = "";
  await new Promise<void>((resolve, reject) => {
    child.stderr?.on("data", (d) => {
      stderr += d;
      if (stderr.includes("test pause")) resolve();
    });
    child.on("close", (code) => reject(new Error(`the load ended (${code}) before pausing:\n${stderr}`)));
  });
  child.kill("SIGKILL");
  await once(child, "close");
}

describe("crash safety of the files target", () => {
  it("a run killed between its data files and the manifest rename loses and doubles nothing", async () => {
    const dir = project(`[target]
connector = "files"
path = "lake"

[sources.lake]
connector = "files"
path = "data"

[sources.lake.tables.orders]
glob = "orders/*.csv"
cursor_column = "k"
`);
    let a = range(0, 50, "a");
    writeText(join(dir, "data/orders/a.csv"), csv(a));

    // First load killed: its data file and run-log record exist, the manifest names neither.
    await killBeforeManifestRename(dir);
    const leftFirst = filesOf(dir).filter((f) => f.endsWith(".parquet"));
    expect(leftFirst).toHaveLength(1);
    expect(filesOf(dir)).toContain("_sqlload/runs/00000000000000000001.json");
    expect(await rowsOf(dir)).toEqual([]);

    await ok(["load"], dir);
    expect(await rowsOf(dir)).toEqual(expected(a));
    for (const orphan of leftFirst) expect(filesOf(dir)).not.toContain(orphan);
    // The record the killed run left was removed; the finished run wrote the first one anew.
    expect(runLogRecords(dir)).toEqual(["00000000000000000001.json"]);

    // Rows at the maximum change and new ones arrive; that load is killed too.
    a = [...range(0, 40, "a"), ...range(40, 50, "changed")];
    const b = range(50, 80, "b");
    writeText(join(dir, "data/orders/a.csv"), csv(a));
    writeText(join(dir, "data/orders/b.csv"), csv(b));
    const committed = filesOf(dir);
    await killBeforeManifestRename(dir);
    const leftSecond = filesOf(dir).filter((f) => !committed.includes(f) && f.endsWith(".parquet"));
    expect(leftSecond.length).toBeGreaterThanOrEqual(1);
    expect(runLogRecords(dir)).toHaveLength(2);
    // The table still reads as the last commit left it.
    expect(await rowsOf(dir)).toEqual(expected(range(0, 50, "a")));

    await ok(["load"], dir);
    expect(await rowsOf(dir)).toEqual(expected([...a, ...b]));
    for (const orphan of leftSecond) expect(filesOf(dir)).not.toContain(orphan);
    expect(runLogRecords(dir)).toHaveLength(2);
  });

  it("loads killed at random instants, then one that finishes, leave exactly the source rows", async () => {
    const dir = project(`[target]
connector = "files"
path = "lake"

[sources.lake]
connector = "files"
path = "data"

[sources.lake.tables.orders]
glob = "orders/*.csv"
cursor_column = "k"
`);
    const rows = range(0, 30, "a");
    writeText(join(dir, "data/orders/a.csv"), csv(rows));
    await ok(["load"], dir);
    for (let i = 0; i < 3; i++) {
      const more = range(30 + 10 * i, 40 + 10 * i, `r${i}`);
      rows.push(...more);
      writeText(join(dir, `data/orders/r${i}.csv`), csv(more));
      const child = startCli(["load"], dir);
      // Listen first: a load may finish before the kill, and its close must not be missed.
      const closed = once(child, "close");
      // Somewhere between start-up and the end of the load (or after it).
      await new Promise((resolve) => setTimeout(resolve, 300 + Math.random() * 1500));
      child.kill("SIGKILL");
      await closed;
      const now = await rowsOf(dir);
      // Whatever the instant: the table is the last commit, a prefix of the source in cursor order.
      expect(expected(rows).slice(0, now.length)).toEqual(now);
    }
    await ok(["load"], dir);
    expect(await rowsOf(dir)).toEqual(expected(rows));
    expect(filesOf(dir).filter((f) => f.endsWith(".tmp"))).toEqual([]);
  });
});
