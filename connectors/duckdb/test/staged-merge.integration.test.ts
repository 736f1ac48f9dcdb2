import { DuckDBConnection, DuckDBInstance } from "@duckdb/node-api";
import type { Column, RecordBatch } from "@sqlload/core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { StagedMerge, type StagedMergeTarget } from "../src/duckdb-staged-merge.js";

let instance: DuckDBInstance;
let n = 0;
beforeAll(async () => {
  instance = await DuckDBInstance.create(":memory:");
});
afterAll(() => instance?.closeSync());

const columns: Column[] = [
  { name: "id", type: { kind: "int64" }, nullable: false },
  { name: "v", type: { kind: "int32" }, nullable: true },
];
const batchOf = (ids: bigint[], v: number, schema = columns): RecordBatch => ({
  schema,
  length: ids.length,
  columns: [{ values: BigInt64Array.from(ids) }, { values: new Int32Array(ids.length).fill(v) }],
});

/** A table `t<n>` holding `rows`, and a merge into it on `id`. */
async function table(connection: DuckDBConnection, rows: [number, number][], exactNames = false) {
  const name = `t${++n}`;
  await connection.run(`CREATE TABLE ${name} (id BIGINT, v INTEGER)`);
  if (rows.length > 0) await connection.run(`INSERT INTO ${name} VALUES ${rows.map(([id, v]) => `(${id}, ${v})`).join(", ")}`);
  const target: StagedMergeTarget = {
    into: name,
    columns: ["id", "v"],
    keys: [{ column: "id", name: "id" }],
    stage: `stage_${name}`,
    label: `raw.${name}`,
    exactNames,
  };
  const read = async () =>
    new Map(
      (await (await connection.runAndReadAll(`SELECT id, v FROM ${name}`)).getRowsJS()).map(([id, v]) => [
        id as bigint,
        v as number,
      ]),
    );
  return { merge: new StagedMerge(connection, target), read };
}

describe("StagedMerge", () => {
  it("merges a few hundred thousand rows at a time, a key's row from its last batch, across merges too", async () => {
    const connection = await instance.connect();
    const { merge, read } = await table(connection, [
      [1, -1],
      [999_999, -1],
    ]);
    const expected = new Map<bigint, number>([
      [1n, -1],
      [999_999n, -1],
    ]);
    const rows = 65_536;
    // In a transaction, as the DuckDB target merges (the files target's merges are outside one):
    // the stage is dropped and made again inside it.
    await connection.run("BEGIN TRANSACTION");
    const run = vi.spyOn(DuckDBConnection.prototype, "run");
    try {
      for (let b = 1; b <= 5; b++) {
        // Batch 3 sends keys of batch 1 again (the same merge), batch 5 keys of batches 1 and 3 (the next one).
        const ids = Array.from({ length: rows }, (_, i) =>
          BigInt((b === 3 && i < 100) || (b === 5 && i < 1000) ? i + 1 : (b - 1) * rows + i + 1),
        );
        for (const id of ids) expected.set(id, b);
        await merge.write(batchOf(ids, b), rows * 12);
      }
      await merge.settle();
      expect(run.mock.calls.filter(([sql]) => /DELETE FROM [^;]* USING/.test(String(sql)))).toHaveLength(2);
    } finally {
      run.mockRestore();
    }
    await connection.run("COMMIT");
    const back = await read();
    expect(back.size).toBe(expected.size);
    const wrong = [...expected].filter(([id, v]) => back.get(id) !== v);
    expect(wrong).toEqual([]);
    connection.closeSync();
  });

  it("merges once the batches' bytes reach the bound, whatever their rows", async () => {
    const connection = await instance.connect();
    const { merge, read } = await table(connection, []);
    const run = vi.spyOn(DuckDBConnection.prototype, "run");
    try {
      // Batches said to be 20 MB each: the second reaches 32 MB.
      await merge.write(batchOf([1n, 2n], 1), 20 << 20);
      expect(await read()).toEqual(new Map());
      await merge.write(batchOf([2n, 3n], 2), 20 << 20);
      expect(run.mock.calls.filter(([sql]) => /DELETE FROM [^;]* USING/.test(String(sql)))).toHaveLength(1);
    } finally {
      run.mockRestore();
    }
    expect(await read()).toEqual(
      new Map([
        [1n, 1],
        [2n, 2],
        [3n, 2],
      ]),
    );
    connection.closeSync();
  });

  it("refuses a key twice in one batch, beside keys repeated across batches, naming it", async () => {
    const connection = await instance.connect();
    const { merge, read } = await table(connection, [[5, 0]]);
    await merge.write(batchOf([5n, 6n], 1), 100);
    await merge.write(batchOf([6n, 7n, 7n], 2), 100);
    await expect(merge.settle()).rejects.toMatchObject({
      code: "SL301",
      message: expect.stringContaining("primary key (id = 7) appears more than once in one batch"),
    });
    expect(await read()).toEqual(new Map([[5n, 0]]));
    connection.closeSync();
  });

  it("matches batch columns by exact name when told to", async () => {
    const connection = await instance.connect();
    const { merge } = await table(connection, [], true);
    const upper: Column[] = [{ ...(columns[0] as Column), name: "ID" }, columns[1] as Column];
    await expect(merge.write(batchOf([1n], 1, upper), 100)).rejects.toMatchObject({ code: "SL305" });
    merge.discard();
    connection.closeSync();
  });
});
