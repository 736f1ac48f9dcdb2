import { BLOB, type DuckDBType } from "@duckdb/node-api";
import { describe, expect, it } from "vitest";
import { BIGINT, LIST, VARCHAR } from "./duckdb-client.js";
import { readShape } from "./duckdb-read-memory.js";
import { PAGE_BYTES, pagePlan, rowTextBytesSql, SAMPLE_CAP_BYTES, samplePlan } from "./duckdb-read-pages.js";

const text = (longest: number) => `[Min: a, Max: z, Has Unicode: false, Max String Length: ${longest}][Has Null: false]`;
/** An id and a text column whose longest value is `longest` bytes; rows of `longest + 32` bytes at most. */
const shape = (longest: number) => readShape([BIGINT, VARCHAR], ["[Min: 1, Max: 9]", text(longest)]);
const HALF_MB = 512 * 1024;
const MB = 1024 * 1024;

describe("samplePlan", () => {
  it("samples tables of long text only, up to 256 rows and SAMPLE_CAP_BYTES of their widest", () => {
    expect(samplePlan(shape(1024), 2)).toBeUndefined();
    expect(samplePlan(readShape([BIGINT, LIST(VARCHAR)], ["[Min: 1]", text(51_200)]), 2)).toBeUndefined();
    expect(samplePlan(shape(51_200), 2)).toEqual({ rows: 256, need: 2 * 2 * HALF_MB + 2 * 256 * 51_232 });
    // Values of 5 MB: 12 of them fill the cap.
    expect(samplePlan(shape(5 * MB), 2)?.rows).toBe(Math.floor(SAMPLE_CAP_BYTES / (5 * MB + 32)));
    expect(samplePlan(shape(200 * MB), 2)?.rows).toBe(1);
  });
});

describe("pagePlan", () => {
  it("pages a table whose every row is wide by about PAGE_BYTES of them", () => {
    const plan = pagePlan(shape(51_200), 2, 51_200);
    expect(plan?.rows).toBe(Math.floor(PAGE_BYTES / 51_232));
    // The limit covers a page were each row the widest, twice, and a block of each column per thread.
    expect(plan?.need).toBe(2 * 2 * HALF_MB + 2 * (plan?.rows ?? 0) * 51_232);
    expect(plan?.need).toBeLessThan(20e6);
    // No rows sampled (all deleted where the sample looked): taken as the widest.
    expect(pagePlan(shape(51_200), 2, undefined)?.rows).toBe(Math.floor(PAGE_BYTES / 51_232));
    // One row a page at least, whatever its width.
    expect(pagePlan(shape(300 * MB), 2, 300 * MB)?.rows).toBe(1);
  });

  it("sizes pages by the average row, not by one value far wider than the rest", () => {
    // One value of 80 MB among rows of 50 KB: pages of 163 rows still, not of one; the limit covers
    // a page of the widest (the raise stops at DuckDB's own).
    const plan = pagePlan(shape(80 * MB), 2, 51_200);
    expect(plan?.rows).toBe(Math.floor(PAGE_BYTES / 51_232));
    expect(plan?.need).toBeGreaterThan(2 * (plan?.rows ?? 0) * 80 * MB);
    // Long values rare among short ones: large pages, few queries.
    expect(pagePlan(shape(320 * 1024), 2, 360)?.rows).toBe(Math.floor(PAGE_BYTES / 392));
    expect(pagePlan(shape(1024), 2, 1024)).toBeUndefined();
  });
});

describe("rowTextBytesSql", () => {
  it("sums the bytes of top-level text and blobs, and refuses columns it cannot measure", () => {
    const columns = (...types: DuckDBType[]) => types.map((type, i) => ({ name: `c "${i}"`, type }));
    expect(rowTextBytesSql(columns(BIGINT, VARCHAR, BLOB))).toBe(
      'coalesce(strlen("c ""1"""), 0) + coalesce(octet_length("c ""2"""), 0)',
    );
    expect(rowTextBytesSql(columns(BIGINT))).toBeUndefined();
    expect(rowTextBytesSql(columns(VARCHAR, LIST(VARCHAR)))).toBeUndefined();
  });
});
