import { existsSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { batchFromRows, type Column, type CommitUnitOptions } from "@sqlload/core";
import { requestMatching } from "@sqlload/testing/emulator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SnowflakeSession } from "../src/snowflake-session.js";
import { createStageSql, stageRows } from "../src/snowflake-stage.js";
import { StageFiles } from "../src/snowflake-stage-files.js";
import { SnowflakeTarget } from "../src/snowflake-target.js";
import { type Engine, emulatorEngine, freshSchema, stageTablesLeft } from "./harness.js";

// The bulk path through snowflake-sdk's own PUT (its file transfer agent) and the emulator's COPY:
// values exact through the file format, the threshold, files rolling over, failures at the PUT
// and at the COPY.
const columns: Column[] = [
  { name: "id", type: { kind: "int64" }, nullable: false },
  { name: "big", type: { kind: "decimal", precision: 38, scale: 0 }, nullable: true },
  { name: "dec", type: { kind: "decimal", precision: 20, scale: 6 }, nullable: true },
  { name: "f", type: { kind: "float64" }, nullable: true },
  { name: "t", type: { kind: "text" }, nullable: true },
  { name: "b", type: { kind: "bytes" }, nullable: true },
  { name: "j", type: { kind: "json" }, nullable: true },
  { name: "l", type: { kind: "list", element: { kind: "int64" } }, nullable: true },
  { name: "d", type: { kind: "date" }, nullable: true },
  { name: "at", type: { kind: "timestamptz" }, nullable: true },
  { name: "ntz", type: { kind: "timestamp" }, nullable: true },
  { name: "ok", type: { kind: "boolean" }, nullable: true },
];

const texts = ["", 'a,"b"', "line\nbreak\r\nnext", "𝄞 astral 😀", "\\N", "NULL", "  padded  ", "tab\there", "'single'"];
const rows = [
  ...texts.map((t, i) => ({
    id: BigInt(i),
    big: "99999999999999999999999999999999999999",
    dec: "-12345678901234.000001",
    f: [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 0.1, -2.5e-300][i % 5],
    t,
    b: new Uint8Array([0, 0x2c, 0x22, 0x0a, 0xff].slice(0, i % 6)),
    j: `{"n":12345678901234567890,"s":"x,\\"y\\"\\n"}`,
    l: [2n ** 63n - 1n, -(2n ** 63n)],
    d: "1969-12-31",
    at: "1969-12-31T23:59:59.999999Z",
    ntz: "2026-10-12T16:00:00.000001Z",
    ok: i % 2 === 0,
  })),
  { id: 100n, big: null, dec: null, f: null, t: null, b: null, j: null, l: null, d: null, at: null, ntz: null, ok: null },
];

describe("the Snowflake bulk path (PUT + COPY INTO) against the emulator", () => {
  let engine: Engine;
  beforeAll(async () => {
    engine = await emulatorEngine();
  });
  afterAll(() => engine?.stop());
  const emulator = () => engine.emulator as NonNullable<Engine["emulator"]>;
  const shapesOf = (schema: string) =>
    emulator()
      .failures.requests.filter((r) => r.statement?.includes(schema))
      .flatMap((r) => r.shapes);
  const read = async (schema: string) =>
    (
      await emulator().database.query(
        `SELECT ${columns.map((c) => `CAST("${c.name}" AS VARCHAR)`).join(", ")} FROM "${schema}"."t" ORDER BY id`,
      )
    ).rows;

  /** Loads `rows` in batches of three with the given threshold; returns the schema. */
  async function load(bulkLoadRows: number, options: Partial<CommitUnitOptions> = {}): Promise<string> {
    const target = await SnowflakeTarget.open({ ...engine.settings, bulkLoadRows });
    try {
      const ref = { schema: freshSchema(), name: "t" };
      await target.ensureTable(ref, columns);
      const unit = await target.begin(ref, { strategy: "append", columns, ...options });
      for (let i = 0; i < rows.length; i += 3) await unit.write(batchFromRows(columns, rows.slice(i, i + 3)));
      await unit.commit();
      return ref.schema;
    } finally {
      await target.close();
    }
  }

  it("keeps every value exact through the files: the same table as the INSERT path, NULL apart from ''", async () => {
    const inserted = await load(1_000_000);
    expect(shapesOf(inserted)).not.toContain("put");
    // Over the threshold after the second batch: the held rows and every later batch go to files.
    const bulk = await load(5);
    expect(shapesOf(bulk).filter((s) => s === "put" || s === "copy")).toEqual(["put", "copy"]);
    expect(shapesOf(bulk)).not.toContain("insert_values");
    const viaFiles = await read(bulk);
    expect(viaFiles).toEqual(await read(inserted));
    expect(viaFiles.map((r) => r[4])).toEqual([...texts, null]);
    expect(viaFiles[0]?.slice(1, 4)).toEqual(["99999999999999999999999999999999999999", "-12345678901234.000001", "nan"]);
    expect(viaFiles.map((r) => r[3]).slice(0, 5)).toEqual(["nan", "inf", "-inf", "0.1", "-2.5e-300"]);
    expect(viaFiles[5]?.[5]).toBe(String.raw`\x00,\x22\x0A\xFF`);
    expect(viaFiles.at(-1)?.every((v, i) => i === 0 || v === null)).toBe(true);
    expect(viaFiles[0]?.slice(8, 11)).toEqual(["1969-12-31", "1969-12-31 23:59:59.999999+00", "2026-10-12 16:00:00.000001"]);
    // The stage's files were purged, and no local folder of this process is left.
    expect(readdirSync(tmpdir()).filter((e) => e.startsWith(`sqlload-snowflake-${process.pid}-`))).toEqual([]);
  });

  it("merges through the bulk path too, the later row of a key winning", async () => {
    const target = await SnowflakeTarget.open({ ...engine.settings, bulkLoadRows: 0 });
    try {
      const ref = { schema: freshSchema(), name: "t" };
      await target.ensureTable(ref, columns.slice(0, 5));
      const unit = await target.begin(ref, { strategy: "merge", columns: columns.slice(0, 5), primaryKey: ["id"] });
      await unit.write(batchFromRows(columns.slice(0, 5), [{ id: 1n, t: "first" }]));
      await unit.write(batchFromRows(columns.slice(0, 5), [{ id: 1n, t: "second" }]));
      await unit.commit();
      const merged = await emulator().database.query(`SELECT CAST(id AS VARCHAR), t FROM "${ref.schema}"."t"`);
      expect(merged.rows).toEqual([["1", "second"]]);
    } finally {
      await target.close();
    }
  });

  it("rolls over to a new file when one is full, and loads them all with one COPY", async () => {
    const schema = freshSchema();
    const session = await SnowflakeSession.open(engine.settings);
    try {
      const stage = { schema, name: "_sqlload_stage_roll" };
      await session.run(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
      await session.run(createStageSql(stage, columns));
      const files = new StageFiles(session, stage, "0123abcd_1", 4096);
      const many = Array.from({ length: 200 }, (_, i) => ({ ...rows[i % texts.length], id: BigInt(i) }));
      await files.add(stageRows(columns, batchFromRows(columns, many), 0));
      await files.load(200);
      files.remove();
      const puts = shapesOf(schema).filter((s) => s === "put").length;
      expect(puts).toBeGreaterThan(3);
      expect(shapesOf(schema).filter((s) => s === "copy")).toHaveLength(1);
      const staged = await session.run(`SELECT "id" FROM "${schema}"."_sqlload_stage_roll"`);
      expect(staged).toHaveLength(200);
      expect(emulator().stages.files(`"${schema}"."_sqlload_stage_roll"`)).toEqual([]);
    } finally {
      await session.close();
    }
  });

  for (const shape of ["put", "copy"] as const) {
    it(`a unit whose ${shape.toUpperCase()} fails changes nothing, leaves no files, and the next unit lands`, async () => {
      const target = await SnowflakeTarget.open({ ...engine.settings, bulkLoadRows: 0 });
      try {
        const ref = { schema: freshSchema(), name: "t" };
        await target.ensureTable(ref, columns);
        emulator().failures.failNext(requestMatching({ shape }), "Internal error: storage unavailable", { reason: "000603" });
        const unit = await target.begin(ref, { strategy: "append", columns });
        // The first file is PUT at commit (it is not full before), so both failures surface there.
        await unit.write(batchFromRows(columns, rows));
        await expect(unit.commit()).rejects.toMatchObject({ code: "SL305" });
        await unit.abort();
        expect(await read(ref.schema)).toEqual([]);
        expect(readdirSync(tmpdir()).filter((e) => e.startsWith(`sqlload-snowflake-${process.pid}-`))).toEqual([]);
        const again = await target.begin(ref, { strategy: "append", columns });
        await again.write(batchFromRows(columns, rows));
        await again.commit();
        expect(await read(ref.schema)).toHaveLength(rows.length);
        expect(await stageTablesLeft(emulator(), ref.schema)).toEqual([]);
      } finally {
        await target.close();
      }
    });
  }

  it("removes the local folders that dead processes left", async () => {
    const { mkdirSync, writeFileSync } = await import("node:fs");
    const { join } = await import("node:path");
    // pid 2^22 + 1 is above Linux's pid_max default: no such process.
    const dead = join(tmpdir(), "sqlload-snowflake-4194305-left");
    mkdirSync(dead, { recursive: true });
    writeFileSync(join(dead, "x_1.csv.gz"), "");
    await load(0);
    expect(existsSync(dead)).toBe(false);
  });
});
