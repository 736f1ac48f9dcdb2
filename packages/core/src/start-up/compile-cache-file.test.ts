import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { addMark, cacheFileBytes, HEADER_BYTES, MARKS, parseCacheFile } from "./compile-cache-file.js";

const data = Buffer.from("V8's data, as it hands it over");

describe("a compile cache file", () => {
  it("gives back the data and the marks it was written with, newest first, the oldest past MARKS dropped", () => {
    expect(parseCacheFile(cacheFileBytes(data, [3, 2, 1]))).toMatchObject({ data, marks: [3, 2, 1] });
    const many = Array.from({ length: MARKS + 3 }, (_, i) => 1000 - i);
    expect(parseCacheFile(cacheFileBytes(data, many)).marks).toEqual(many.slice(0, MARKS));
    expect(parseCacheFile(cacheFileBytes(data, [])).marks).toEqual([]);
  });

  it("is refused when it is not whole: no header (an older sqlload's), cut short, a byte of its data changed, empty", () => {
    const file = cacheFileBytes(data, [7]);
    const changed = Buffer.from(file);
    changed[HEADER_BYTES + 3]! ^= 0x01;
    const longer = Buffer.concat([file, Buffer.from([0])]);
    for (const bad of [
      data,
      file.subarray(0, file.length - 1),
      changed,
      longer,
      file.subarray(0, HEADER_BYTES),
      Buffer.alloc(0),
    ]) {
      expect(() => parseCacheFile(bad)).toThrow(/compile cache file/);
    }
  });

  it("adds a mark in place to the marks the file holds now, only while it holds the data the run came with", () => {
    const dir = mkdtempSync(join(tmpdir(), "sqlload-cache-file-"));
    try {
      const path = join(dir, "f.v8");
      writeFileSync(path, cacheFileBytes(data, [5]));
      const loaded = parseCacheFile(readFileSync(path));
      // Another run of another kind added its mark meanwhile: both kept.
      addMark(path, loaded, 7);
      addMark(path, loaded, 9);
      expect(parseCacheFile(readFileSync(path))).toMatchObject({ data, marks: [9, 7, 5] });
      // Another run wrote other data there: the marks of this run's data do not go on it.
      const other = Buffer.from("other data");
      writeFileSync(path, cacheFileBytes(other, [11]));
      addMark(path, loaded, 13);
      expect(parseCacheFile(readFileSync(path))).toMatchObject({ data: other, marks: [11] });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
