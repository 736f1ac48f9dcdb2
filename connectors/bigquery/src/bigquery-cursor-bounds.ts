import { isNull, type RecordBatch } from "@sqlload/core";

const INTEGER_KINDS = new Set(["int16", "int32", "int64"]);

/**
 * The minimum and maximum of an integer cursor column over the batches it was shown (NULLs left
 * out). A column of another type (an integer cursor on a decimal) is not measured.
 */
export class CursorBounds {
  private min: bigint | undefined;
  private max: bigint | undefined;

  add(batch: RecordBatch, column: string): void {
    const index = batch.schema.findIndex((c) => c.name === column);
    const vector = batch.columns[index];
    if (!vector || !INTEGER_KINDS.has(batch.schema[index]?.type.kind ?? "")) return;
    for (let row = 0; row < batch.length; row++) {
      if (isNull(vector, row)) continue;
      const value = BigInt(vector.values[row] as bigint | number);
      if (this.min === undefined || value < this.min) this.min = value;
      if (this.max === undefined || value > this.max) this.max = value;
    }
  }

  /** Undefined until a non-NULL value was seen. */
  get range(): { readonly min: bigint; readonly max: bigint } | undefined {
    return this.min === undefined || this.max === undefined ? undefined : { min: this.min, max: this.max };
  }
}
