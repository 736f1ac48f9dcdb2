import { BLOB, type DuckDBType } from "@duckdb/node-api";
import { describe, expect, it } from "vitest";
import { BIGINT, LIST, VARCHAR } from "./duckdb-client.js";
import { readShape } from "./duckdb-read-memory.js";
import { PAGE_BYTES, PAGE_CAP_BYTES, pagePlan, rowTextBytesSql, samplePlan } from "./duckdb-read-pages.js";

const text = (longest: number) => `[Min: a, Max: z, Has Unicode: false, Max String Length: ${longest}][Has Null: false]`;
/** An id and a text column whose longest value is `longest` bytes; rows of `longest + 32` bytes at most. */
const shape = (longest: number) => readShape([BIGINT, VARCHAR], ["[Min: 1, Max: 9]", text(longest)]);
const HALF_MB = 512 * 1024;

describe("samplePlan", () => {
  it("samples tables of long text only, up to 256 rows and PAGE_CAP_BYTES of their widest", () => {
    expect(samplePlan(shape(1024), 2)).toBeUndefined();
    expect(samplePlan(readShape([BIGINT, LIST(VARCHAR)], ["[Min: 1]", text(51_200)]), 2)).toBeUndefined();
    expect(samplePlan(shape(51_200), 2)).toEqual({ rows: 256, need: 2 * 2 * HALF_MB + 2 * 256 * 51_232 });
    // Values of 5 MB: 12 of them fill the cap.
    expect(samplePlan(shape(5 * 1024 * 1024), 2)?.rows).toBe(Math.floor(PAGE_CAP_BYTES / (5 * 1024 * 1024 + 32)));
    expect(samplePlan(shape(200 * 1024 * 1024), 2)?.rows).toBe(1);
  });
});

describe("pagePlan", () => {
  it("pages a table whose every row is wide by about PAGE_BYTES of them", () => {
    const plan = pagePlan(shape(51_200), 2, 51_200);
    expect(plan?.rows).toBe(Math.floor(PAGE_BYTES / 51_232));
    // The limit covers a page were each row the widest, twice, and a block of each column per thread.
    expect(plan?.need).toBe(2 * 2 * HALF_MB + 2 * (plan?.rows ?? 0) * 51_232);
    expect(plan?.need).toBeLessThan(20e6);
  });

  it("sizes pages by the average row, but never past PAGE_CAP_BYTES of the widest", () => {
    const wide = 1024 * 1024;
    // A sample averaging 64 KB would make pages of 127 rows, 127 MB were each row 1 MB: capped at 63 rows.
    const plan = pagePlan(shape(wide), 2, 64 * 1024);
    expect(plan?.rows).toBe(Math.floor(PAGE_CAP_BYTES / (wide + 32)));
    // No rows sampled (all deleted where the sample looked): taken as the widest.
    expect(pagePlan(shape(51_200), 2, undefined)?.rows).toBe(Math.floor(PAGE_BYTES / 51_232));
    // One row a page at least, whatever its width.
    expect(pagePlan(shape(300 * 1024 * 1024), 2, 300 * 1024 * 1024)?.rows).toBe(1);
  });

  it("streams a table whose long values are rare, and one of short text", () => {
    // One value of 320 KB in a thousand, among values of 32 bytes: about 350 bytes a row.
    expect(pagePlan(shape(320 * 1024), 2, 360)).toBeUndefined();
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
