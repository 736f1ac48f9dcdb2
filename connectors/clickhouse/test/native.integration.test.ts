import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { typeCases, withUtf8 } from "@sqlload/conformance";
import { batchFromRows, type Column } from "@sqlload/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringLiteral } from "../src/clickhouse-dialect.js";
import { encodeNative, wireStructure } from "../src/clickhouse-native.js";
import type { ClickHouseSession } from "../src/clickhouse-session.js";
import { ClickHouseTarget } from "../src/clickhouse-target.js";
import { batch, col, type Engine, engines, freshDatabase, query, t } from "./harness.js";

/**
 * The encoder's blocks against ClickHouse's own writer: ClickHouse reads each block through the
 * structure the connector declares and writes what it read back out as Native. Equal bytes mean it
 * parsed every column as written (a wrong width, length or offset would misread the rest) and
 * kept every value.
 */
describe("Native blocks, read and written again by ClickHouse (chdb)", () => {
  // chdb: file() reads and writes local paths.
  const engine = engines().find((e) => e.name === "chdb") as Engine;
  let dir: string;
  let session: ClickHouseSession;
  let files = 0;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "sqlload-native-"));
    session = await engine.session();
  });
  afterAll(async () => {
    await session?.release();
    engine.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  async function rewritten(columns: readonly Column[], block: Buffer): Promise<Buffer> {
    const input = join(dir, `in-${++files}.native`);
    const output = join(dir, `out-${files}.native`);
    writeFileSync(input, block);
    await session.command(
      `INSERT INTO FUNCTION file(${stringLiteral(output)}, 'Native') SELECT * FROM file(${stringLiteral(input)}, 'Native', ${stringLiteral(wireStructure(columns))})`,
    );
    return readFileSync(output);
  }

  for (const c of typeCases) {
    it(`${c.title}, with a NULL row`, async () => {
      const columns: Column[] = [
        { name: "id", type: { kind: "int32" }, nullable: false },
        { name: "v", type: c.type, nullable: true },
      ];
      // A value some connectors skip (TypeValue) is written here all the same.
      const values = c.values.map((v) =>
        v !== null && typeof v === "object" && "needs" in v ? (v as unknown as { value: unknown }).value : v,
      );
      const batch = batchFromRows(
        columns,
        [...values, null].map((v, id) => ({ id, v })),
      );
      const block = encodeNative(batch);
      expect((await rewritten(columns, block)).equals(block)).toBe(true);
      if (c.type.kind === "text" || c.type.kind === "json") expect(encodeNative(withUtf8(batch)).equals(block)).toBe(true);
    });
  }

  it("several blocks one after another, as an insert sends them", async () => {
    const columns: Column[] = [
      { name: "id", type: { kind: "int64" }, nullable: false },
      { name: "name", type: { kind: "text" }, nullable: true },
    ];
    const blocks = [0, 1, 2].map((b) =>
      encodeNative(
        batchFromRows(
          columns,
          Array.from({ length: 1000 }, (_, i) => ({ id: BigInt(b * 1000 + i), name: i % 7 === 0 ? null : `n-${i}-é` })),
        ),
      ),
    );
    const input = join(dir, "blocks.native");
    writeFileSync(input, Buffer.concat(blocks));
    const [row] = await session.query<{ n: string; s: string; nulls: string }>(
      `SELECT count() AS n, sum(id) AS s, countIf(name IS NULL) AS nulls FROM file(${stringLiteral(input)}, 'Native', ${stringLiteral(wireStructure(columns))})`,
    );
    expect(row).toEqual({ n: "3000", s: String((2999 * 3000) / 2), nulls: String(3 * 143) });
  });

  it("a batch of rows without columns inserts nothing and leaves the unit whole", async () => {
    const target = await engine.open();
    try {
      const ref = { schema: freshDatabase(), name: "events" };
      const cols = [col("id", t("int64"), false)];
      const ensured = await target.ensureTable(ref, cols, {});
      const unit = await target.begin(ref, { strategy: "append", columns: ensured });
      await unit.write({ schema: [], length: 3, columns: [] });
      await unit.write(batch(cols, [{ id: 7n }]));
      await unit.commit();
      await target.publish(ref);
      expect(await query(target, `SELECT id FROM \`${ref.schema}\`.events`)).toEqual([{ id: "7" }]);
    } finally {
      await target.close();
    }
  });

  it("many inserts through two buffers taken in turn land every row as written", async () => {
    const target = new ClickHouseTarget(await engine.session(), { flushBytes: 2000 });
    try {
      const ref = { schema: freshDatabase(), name: "events" };
      const cols = [col("id", t("int64"), false), col("body", t("text"))];
      const ensured = await target.ensureTable(ref, cols, {});
      const unit = await target.begin(ref, { strategy: "append", columns: ensured });
      const expected: string[] = [];
      let id = 0;
      for (let b = 0; b < 40; b++) {
        // Batches of 1 to 300 rows and bodies of 1 to 200 characters: inserts of every size, each
        // written over what a larger one left in the buffer before it.
        const rows = Array.from({ length: 1 + ((b * 37) % 300) }, () => {
          id++;
          const body = b % 5 === 0 && id % 3 === 0 ? null : `${b}:${"x".repeat(1 + ((id * 13) % 200))}`;
          expected.push(`${id}:${body}`);
          return { id: BigInt(id), body };
        });
        // Half the batches lack the body column: a shape of their own, so a flush between shapes.
        await unit.write(
          b % 2 === 0
            ? batch(cols, rows)
            : batch(
                [cols[0] as Column],
                rows.map((r) => ({ id: r.id })),
              ),
        );
        if (b % 2 === 1)
          for (let k = expected.length - rows.length; k < expected.length; k++)
            expected[k] = `${(expected[k] as string).split(":")[0]}:null`;
      }
      await unit.commit();
      await target.publish(ref);
      const landed = await query<{ id: string; body: string | null }>(
        target,
        `SELECT id, body FROM \`${ref.schema}\`.events ORDER BY id`,
      );
      expect(landed.map((r) => `${r.id}:${r.body}`)).toEqual(expected);
    } finally {
      await target.close();
    }
  });
});
