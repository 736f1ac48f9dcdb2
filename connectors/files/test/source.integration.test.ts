import { execFileSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import {
  type CursorValue,
  dateCursor,
  integerCursor,
  isSqlloadError,
  type SourceConnection,
  timestampCursor,
} from "@sqlload/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { corruptData, duck, openSource, parquet, readAll, readTable, request, tempDir, writeText } from "./harness.js";

let project: ReturnType<typeof tempDir>;
let source: SourceConnection;
let n = 0;
/** A fresh folder under the source root per test. */
const folder = () => `t${++n}`;
const data = (...parts: string[]) => join(project.dir, "data", ...parts);

beforeAll(async () => {
  project = tempDir();
  source = await openSource(project.dir);
});
afterAll(async () => {
  await source?.close();
  project?.cleanup();
});

const days = (text: string): CursorValue => {
  const [y, m, d] = text.split("-").map(Number) as [number, number, number];
  return dateCursor(Math.round(Date.UTC(y, m - 1, d) / 86_400_000));
};

describe("CSV", () => {
  it("reads a folder of CSV files with a header, typed by DuckDB's sniffer, as one table", async () => {
    const f = folder();
    writeText(data(f, "a.csv"), 'id,name,at\n1,a,2026-10-01 10:00:00\n2,"b, c",2026-10-01 11:00:00\n');
    writeText(data(f, "b.csv"), "id,name,at\n3,d,2026-10-02 10:00:00\n");
    writeText(data(f, "notes.txt"), "not a table file");
    const { rows, info } = await readTable(source, request("orders", { glob: `${f}/*.csv` }, "at"));
    expect(info.columns?.map((c) => `${c.name}:${c.type.kind}`)).toEqual(["id:int64", "name:text", "at:timestamp"]);
    expect(info.cursorKind).toBe("timestamp");
    // No statistics in CSV: reading in cursor order would sort everything, so it commits once.
    expect(info.cursorIndexed).toBe(false);
    expect(rows.map((r) => [r.id, r.name])).toEqual([
      [1n, "a"],
      [2n, "b, c"],
      [3n, "d"],
    ]);
  });

  it("honours delimiter, quote and header options, and gzip/zstd compression", async () => {
    const f = folder();
    writeText(data(f, "x.csv"), "1;'a;b'\n2;'c'\n");
    writeText(data(f, "y.csv.gz"), gzipSync("3;'d'\n"));
    writeText(data(f, "z.csv"), "4;'e'\n");
    execFileSync("zstd", ["-q", "--rm", data(f, "z.csv"), "-o", data(f, "z.csv.zst")]);
    const options = { glob: `${f}/*.{csv,csv.gz,csv.zst}`, format: "csv", header: false, delimiter: ";", quote: "'" };
    const { rows } = await readTable(source, request("t", options));
    expect(rows.map((r) => Object.values(r))).toEqual([
      [1n, "a;b"],
      [2n, "c"],
      [3n, "d"],
      [4n, "e"],
    ]);
  });

  it("unifies a column added in a later file (NULL before), and reads only the requested columns", async () => {
    const f = folder();
    writeText(data(f, "1.csv"), "id,v\n1,x\n");
    writeText(data(f, "2.csv"), "id,v,extra\n2,y,9\n");
    const { rows } = await readTable(source, request("t", { glob: `${f}/*.csv` }));
    expect(rows).toEqual([
      { id: 1n, v: "x", extra: null },
      { id: 2n, v: "y", extra: 9n },
    ]);
    const narrow = await readTable(source, request("t", { glob: `${f}/*.csv` }, "id", ["v"]));
    expect(narrow.info.columns?.map((c) => c.name)).toEqual(["v", "id"]);
  });
});

describe("files that change between plan and load", () => {
  it("reads new files at open, but only the columns the table was described with", async () => {
    const f = folder();
    writeText(data(f, "1.csv"), "id,v\n1,x\n");
    const req = request("t", { glob: `${f}/*.csv` });
    const info = await source.describeTable(req);
    writeText(data(f, "2.csv"), "id,v,extra\n2,y,9\n");
    const reader = await source.openTable(req, info);
    try {
      const { rows } = await readAll(reader);
      expect(rows).toEqual([
        { id: 1n, v: "x" },
        { id: 2n, v: "y" },
      ]);
    } finally {
      await reader.close();
    }
  });
});

describe("JSON lines", () => {
  it("reads newline-delimited JSON, gzip-compressed too", async () => {
    const f = folder();
    writeText(data(f, "a.jsonl"), '{"id":1,"v":"x","ts":"2026-10-01T00:00:00"}\n{"id":2,"v":null,"ts":"2026-10-01T01:00:00"}\n');
    writeText(data(f, "b.jsonl.gz"), gzipSync('{"id":3,"v":"z","ts":"2026-10-02T00:00:00"}\n'));
    const { rows, info } = await readTable(source, request("events", { glob: `${f}/*.jsonl*`, format: "jsonl" }, "ts"), {
      from: timestampCursor(BigInt(Date.UTC(2026, 9, 1, 1)) * 1000n),
    });
    expect(info.columns?.map((c) => `${c.name}:${c.type.kind}`)).toEqual(["id:int64", "v:text", "ts:timestamp"]);
    expect(rows.map((r) => r.id)).toEqual([2n, 3n]);
  });
});

describe("Parquet with Hive partitions", () => {
  async function partitioned(f: string): Promise<void> {
    for (const [day, ids] of [
      ["2026-09-30", [1, 2]],
      ["2026-10-01", [3, 4, 5]],
      ["2026-10-02", [6]],
    ] as const) {
      await parquet(data(f, `day=${day}`, "a.parquet"), `SELECT unnest([${ids.join(",")}])::BIGINT AS id, 'v' || id AS v`);
    }
    // A second file in one partition: a partition spans files and is never split.
    await parquet(data(f, "day=2026-10-01", "b.parquet"), "SELECT 7::BIGINT AS id, 'v7' AS v");
  }

  it("reads partition folders as a column and uses one as the cursor", async () => {
    const f = folder();
    await partitioned(f);
    const { rows, info } = await readTable(source, request("orders", { glob: `${f}/**/*.parquet` }, "day"));
    expect(info.columns?.map((c) => `${c.name}:${c.type.kind}`)).toEqual(["id:int64", "v:text", "day:date"]);
    expect(info.cursorIndexed).toBe(true);
    expect(info.notes?.join("\n")).toContain("cursor day is a partition folder");
    expect(rows.map((r) => r.id).sort()).toEqual([1n, 2n, 3n, 4n, 5n, 6n, 7n]);
  });

  it("opens only partitions at or after the position", async () => {
    const f = folder();
    await partitioned(f);
    const req = request("orders", { glob: `${f}/**/*.parquet` }, "day");
    const reader = await source.openTable(req, await source.describeTable(req));
    try {
      // The old partition cannot be read any more: a read that opened it would fail.
      writeText(data(f, "day=2026-09-30", "a.parquet"), "garbage");
      const { rows } = await readAll(reader, { from: days("2026-10-01") }, { includeNulls: false });
      expect(rows.map((r) => r.id).sort()).toEqual([3n, 4n, 5n, 6n, 7n]);
      await expect(readAll(reader, {})).rejects.toThrow(/2026-09-30/);
      expect(await reader.maxCursor!()).toEqual(days("2026-10-02"));
      expect(await reader.firstCursorAtOrAfter!(days("2026-09-15"))).toEqual(days("2026-09-30"));
      expect(await reader.firstCursorAtOrAfter!(days("2026-09-30"))).toEqual(days("2026-09-30"));
      expect(await reader.firstCursorAtOrAfter!(days("2026-10-02"))).toEqual(days("2026-10-02"));
      expect(await reader.firstCursorAtOrAfter!(days("2026-10-03"))).toBeNull();
    } finally {
      await reader.close();
    }
  });

  it("reads in cursor order, NULL partition first, with commit points only between partitions", async () => {
    const f = folder();
    await partitioned(f);
    await parquet(data(f, "day=__HIVE_DEFAULT_PARTITION__", "n.parquet"), "SELECT 0::BIGINT AS id, 'v0' AS v");
    // A partition larger than a batch, in two files: batches end inside it, commit points never.
    await parquet(data(f, "day=2026-10-01", "big1.parquet"), "SELECT range::BIGINT + 1000 AS id, 'big' AS v FROM range(40000)");
    await parquet(data(f, "day=2026-10-01", "big2.parquet"), "SELECT range::BIGINT + 50000 AS id, 'big' AS v FROM range(40000)");
    const req = request("orders", { glob: `${f}/**/*.parquet` }, "day");
    const info = await source.describeTable(req);
    const reader = await source.openTable(req, info);
    const daysSeen: (number | null)[] = [];
    const cuts: { before: number | null; after: number | null }[] = [];
    let pendingCut = false;
    try {
      for await (const item of reader.read({
        range: {},
        includeNulls: true,
        ordered: true,
        signal: new AbortController().signal,
      })) {
        if (item.kind === "commit-point") pendingCut = true;
        if (item.kind !== "batch") continue;
        const values = item.batch.columns[2]!;
        const dayAt = (i: number) => (values.nulls?.[i] === 1 ? null : (values.values[i] as number));
        if (pendingCut && daysSeen.length > 0) cuts.push({ before: daysSeen[daysSeen.length - 1]!, after: dayAt(0) });
        pendingCut = false;
        for (let i = 0; i < item.batch.length; i++) daysSeen.push(dayAt(i));
      }
    } finally {
      await reader.close();
    }
    expect(daysSeen).toHaveLength(80_008);
    expect(daysSeen[0]).toBeNull();
    const nonNull = daysSeen.slice(1) as number[];
    expect(nonNull).toEqual([...nonNull].sort((a, b) => a - b));
    expect(cuts.length).toBeGreaterThan(0);
    for (const cut of cuts) expect(cut.before).not.toEqual(cut.after);
  });

  it("forces a commit before a partition that would take the files since the last past 1,000", async () => {
    const f = folder();
    // 1,500 one-row partitions: the runner commits at 1,000 files, then at the end.
    mkdirSync(data(), { recursive: true });
    await duck(
      `COPY (SELECT range::BIGINT AS id, range AS n FROM range(1, 1501)) TO '${data(f)}' (FORMAT parquet, PARTITION_BY (n))`,
    );
    const { rows, items } = await readTable(source, request("t", { glob: `${f}/**/*.parquet` }, "n"), {}, { ordered: true });
    expect(rows).toHaveLength(1500);
    const forced = items.flatMap((item, i) => (item.kind === "commit-point" && item.required ? [i] : []));
    expect(forced).toHaveLength(1);
    const before = items.slice(0, forced[0]).reduce((sum, item) => sum + (item.kind === "batch" ? item.batch.length : 0), 0);
    expect(before).toBe(1000);
  });
});

describe("Parquet statistics", () => {
  async function ranged(f: string): Promise<void> {
    // Three files with disjoint id ranges, one overlapping the second, one with NULLs only.
    await parquet(data(f, "a.parquet"), "SELECT range::BIGINT AS id, range % 3 AS k FROM range(0, 100)");
    await parquet(data(f, "b.parquet"), "SELECT range::BIGINT AS id, range % 3 AS k FROM range(100, 200)");
    await parquet(data(f, "c.parquet"), "SELECT range::BIGINT AS id, range % 3 AS k FROM range(150, 160)");
    await parquet(data(f, "d.parquet"), "SELECT range::BIGINT AS id, range % 3 AS k FROM range(300, 400)");
    await parquet(data(f, "e.parquet"), "SELECT NULL::BIGINT AS id, 1 AS k");
  }

  it("answers the maximum and the first value at or after a position from the footers, without scanning", async () => {
    const f = folder();
    await ranged(f);
    const req = request("t", { glob: `${f}/*.parquet` }, "id");
    const reader = await source.openTable(req, await source.describeTable(req));
    try {
      // Every data page is unreadable from here on: only the footers answer.
      for (const name of ["a", "b", "c", "d", "e"]) corruptData(data(f, `${name}.parquet`));
      await expect(readAll(reader, {})).rejects.toThrow();
      expect(await reader.maxCursor!()).toEqual(integerCursor(399));
      expect(await reader.firstCursorAtOrAfter!(integerCursor(200))).toEqual(integerCursor(300));
      expect(await reader.firstCursorAtOrAfter!(integerCursor(-5))).toEqual(integerCursor(0));
      expect(await reader.firstCursorAtOrAfter!(integerCursor(400))).toBeNull();
    } finally {
      await reader.close();
    }
  });

  it("scans only a file that straddles the position", async () => {
    const f = folder();
    await ranged(f);
    const req = request("t", { glob: `${f}/*.parquet` }, "id");
    const reader = await source.openTable(req, await source.describeTable(req));
    try {
      expect(await reader.firstCursorAtOrAfter!(integerCursor(150))).toEqual(integerCursor(150));
      expect(await reader.firstCursorAtOrAfter!(integerCursor(250))).toEqual(integerCursor(300));
      expect(await reader.firstCursorAtOrAfter!(integerCursor(57))).toEqual(integerCursor(57));
    } finally {
      await reader.close();
    }
  });

  it("prunes files by statistics and orders reads by them: NULLs first, overlapping files together", async () => {
    const f = folder();
    await ranged(f);
    const req = request("t", { glob: `${f}/*.parquet` }, "id");
    const full = await readTable(source, req, {}, { ordered: true });
    expect(full.info.cursorIndexed).toBe(true);
    const ids = full.rows.map((r) => r.id);
    expect(ids).toHaveLength(311);
    expect(ids[0]).toBeNull();
    expect(ids.slice(1)).toEqual([...ids.slice(1)].sort((a, b) => Number(a) - Number(b)));
    // The NULL rows come alone, then commit points fall between distinct values only.
    expect(full.stretches[0]).toBe(1);
    const later = await readTable(source, req, { from: integerCursor(300) }, { ordered: false, includeNulls: false });
    expect(later.rows).toHaveLength(100);
  });

  it("reads a column added in later files as NULL in older ones, also in a pruned read", async () => {
    const f = folder();
    await parquet(data(f, "1.parquet"), "SELECT 1::INTEGER AS id");
    await parquet(data(f, "2.parquet"), "SELECT 2::BIGINT AS id, 'x' AS extra");
    const req = request("t", { glob: `${f}/*.parquet` }, "id");
    const { rows, info } = await readTable(source, req);
    expect(info.columns?.map((c) => `${c.name}:${c.type.kind}`)).toEqual(["id:int64", "extra:text"]);
    expect(rows).toEqual([
      { id: 1n, extra: null },
      { id: 2n, extra: "x" },
    ]);
    const pruned = await readTable(source, req, { to: integerCursor(2) }, { includeNulls: false });
    expect(pruned.rows).toEqual([{ id: 1n, extra: null }]);
  });

  it("refuses files whose column types cannot be unified, naming both files", async () => {
    const f = folder();
    await parquet(data(f, "1.parquet"), "SELECT 1 AS id");
    await parquet(data(f, "2.parquet"), "SELECT 'abc' AS id");
    const error = await source.describeTable(request("t", { glob: `${f}/*.parquet` })).catch((e: unknown) => e);
    expect(isSqlloadError(error) && error.code).toBe("SL304");
    expect((error as Error).message).toContain(`${f}/1.parquet`);
    expect((error as Error).message).toContain(`${f}/2.parquet`);
  });
});

describe("configuration", () => {
  it("needs no schema in table keys, and says when no file matches", async () => {
    const withSchema = await source
      .describeTable({ table: { schema: "s", name: "t", key: "s.t" }, options: { glob: "x/*.csv" } })
      .catch((e: unknown) => e);
    expect(isSqlloadError(withSchema) && withSchema.code).toBe("SL110");
    const none = await source.describeTable(request("t", { glob: "nothing/*.csv" })).catch((e: unknown) => e);
    expect(isSqlloadError(none) && none.code).toBe("SL206");
    const unknown = await source.describeTable(request("t", { glob: "x/*" })).catch((e: unknown) => e);
    expect(isSqlloadError(unknown) && unknown.code).toBe("SL105");
  });
});

describe("names holding glob characters", () => {
  it("reads a folder of a table's name by the default glob, brackets and backslashes included", async () => {
    const name = `${folder()} back\\slash [br] {a,b} *?`;
    await parquet(data(name, "part-0.parquet"), "SELECT 1::BIGINT AS id");
    // What `[br]` would match as a pattern: never read.
    await parquet(data(`${name.split(" ")[0]} back\\slash b {a,b} *?`, "part-0.parquet"), "SELECT 2::BIGINT AS id");
    const { rows } = await readTable(source, request(name, { format: "parquet" }));
    expect(rows).toEqual([{ id: 1n }]);
  });

  it("refuses a file DuckDB cannot open alone: a backslash beside [, and a sibling differing only there", async () => {
    const f = folder();
    await parquet(data(f, "a\\b [1]", "part.parquet"), "SELECT 1::BIGINT AS id");
    await parquet(data(f, "a_b [1]", "part.parquet"), "SELECT 2::BIGINT AS id");
    const error = await source.describeTable(request("t", { glob: `${f}/a\\b*/*.parquet` })).catch((e: unknown) => e);
    expect(isSqlloadError(error) && error.code).toBe("SL304");
    expect((error as Error).message).toContain(`${f}/a\\b [1]/part.parquet`);
  });
});
