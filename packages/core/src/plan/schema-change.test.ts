import { describe, expect, it } from "vitest";
import { type LogicalType, parseLogicalType } from "../connector/logical-types.js";
import { checkSchemaChange, schemaChange, typeChange } from "./schema-change.js";

const t = (text: string): LogicalType => parseLogicalType(text) as LogicalType;

describe("typeChange", () => {
  it.each([
    ["int32", "int32", "same"],
    ["int64", "int32", "fits"],
    ["text", "decimal(40,2)", "fits"],
    ["int32", "int64", "widen"],
    ["decimal(10,2)", "decimal(14,4)", "widen"],
    ["int32", "decimal(12,2)", "widen"],
    ["float32", "float64", "widen"],
    ["date", "timestamp", "widen"],
    ["date", "timestamptz", "widen"],
    ["int64", "int16", "fits"],
    ["decimal(14,4)", "decimal(10,2)", "fits"],
    ["decimal(10,2)", "decimal(10,4)", "lossy"],
    ["text", "int64", "lossy"],
    ["timestamp", "date", "fits"],
    ["float64", "int64", "lossy"],
    ["bytes", "uuid", "unknown"],
  ])("a %s column, source now %s: %s", (target, source, expected) => {
    expect(typeChange(t(target), t(source))).toBe(expected);
  });
});

describe("schemaChange", () => {
  const col = (name: string, type: string) => ({ name, type: t(type), nullable: true });

  it("lists added, widened, dropped and lossy columns", () => {
    const change = schemaChange(
      [col("id", "int64"), col("n", "int32"), col("old", "text"), col("s", "text")],
      [col("id", "int64"), col("n", "int64"), col("s", "int32"), col("extra", "text")],
    );
    expect(change).toEqual({
      added: [col("extra", "text")],
      widened: [{ column: "n", from: t("int32"), to: t("int64") }],
      dropped: ["old"],
      lossy: [{ column: "s", from: t("text"), to: t("int32") }],
    });
    expect(() => checkSchemaChange(change!, "raw.src__t", "evolve")).toThrowError(
      expect.objectContaining({ code: "SL312", message: expect.stringContaining('column "s" changed type from text to int32') }),
    );
  });

  it("refuses any change under fail, none when nothing changed", () => {
    const same = schemaChange([col("id", "int64")], [col("id", "int64")])!;
    expect(() => checkSchemaChange(same, "raw.src__t", "fail")).not.toThrow();
    const added = schemaChange([col("id", "int64")], [col("id", "int64"), col("x", "text")])!;
    expect(() => checkSchemaChange(added, "raw.src__t", "fail")).toThrowError(expect.objectContaining({ code: "SL313" }));
    expect(schemaChange(undefined, [col("id", "int64")])).toBeUndefined();
  });
});
