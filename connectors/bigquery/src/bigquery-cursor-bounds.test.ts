import { batchFromRows, type Column } from "@sqlload/core";
import { describe, expect, it } from "vitest";
import { CursorBounds } from "./bigquery-cursor-bounds.js";

describe("cursor bounds of a replace's rows", () => {
  it("tracks the minimum and maximum over batches, exactly, leaving NULLs out", () => {
    const columns: Column[] = [
      { name: "id", type: { kind: "int64" }, nullable: true },
      { name: "small", type: { kind: "int32" }, nullable: true },
    ];
    const bounds = new CursorBounds();
    expect(bounds.range).toBeUndefined();
    bounds.add(batchFromRows(columns, [{ id: null, small: 1 }]), "id");
    expect(bounds.range).toBeUndefined();
    bounds.add(
      batchFromRows(columns, [
        { id: 2n ** 62n, small: 1 },
        { id: -5n, small: 2 },
      ]),
      "id",
    );
    bounds.add(batchFromRows(columns, [{ id: 2n ** 62n + 1n, small: 3 }]), "id");
    expect(bounds.range).toEqual({ min: -5n, max: 2n ** 62n + 1n });
    const small = new CursorBounds();
    small.add(
      batchFromRows(columns, [
        { id: 1n, small: -7 },
        { id: 2n, small: 70_000 },
      ]),
      "small",
    );
    expect(small.range).toEqual({ min: -7n, max: 70_000n });
  });

  it("measures integer columns only", () => {
    const bounds = new CursorBounds();
    bounds.add(
      batchFromRows([{ name: "d", type: { kind: "decimal", precision: 20, scale: 0 }, nullable: false }], [{ d: "5" }]),
      "d",
    );
    bounds.add(batchFromRows([{ name: "x", type: { kind: "int64" }, nullable: false }], [{ x: 1n }]), "missing");
    expect(bounds.range).toBeUndefined();
  });
});
