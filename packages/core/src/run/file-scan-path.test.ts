import { describe, expect, it } from "vitest";
import { defaultSourceCapabilities, defaultTargetCapabilities } from "../connector/capabilities.js";
import { readPath, readPathNote } from "./file-scan-path.js";

const offer = { engine: "duckdb", format: "csv" } as const;
const source = { ...defaultSourceCapabilities, exactRange: true };
const target = { ...defaultTargetCapabilities, fileScanEngines: ["duckdb"] };

describe("readPath", () => {
  it("hands files to a target of their engine, for every strategy but merge", () => {
    for (const strategy of ["append", "delete_insert", "replace"] as const) {
      expect(readPath({ info: { fileScan: offer }, source, target, strategy })).toEqual({ kind: "files", format: "csv" });
    }
    expect(readPath({ info: { fileScan: offer }, source, target, strategy: "merge" }).kind).toBe("rows");
  });

  it("reads rows, saying why, where the result could differ; says nothing for a source that offers no files", () => {
    const rows = (why: string) => ({ kind: "rows", why });
    expect(readPath({ info: { fileScan: offer, loggedState: true }, source, target, strategy: "append" })).toEqual(
      rows("the table keeps logged state"),
    );
    expect(readPath({ info: { fileScan: offer }, source: defaultSourceCapabilities, target, strategy: "append" })).toEqual(
      rows("the source does not filter its range itself"),
    );
    expect(readPath({ info: { fileScan: offer }, source, target: defaultTargetCapabilities, strategy: "append" })).toEqual(
      rows("the target cannot read these files"),
    );
    const none = readPath({ info: {}, source, target, strategy: "append" });
    expect(none).toEqual({ kind: "rows" });
    expect(readPathNote(none)).toBeUndefined();
  });
});
