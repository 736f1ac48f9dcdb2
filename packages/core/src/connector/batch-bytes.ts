/**
 * The most bytes of values a source puts in one batch: it cuts a batch after the row that reaches
 * them, whatever its row count. Rows of 1 KB then make batches of about 8 MB, and rows of 100 KB
 * batches of 80 rows, so the memory a read holds in flight does not grow with the rows' width
 * (issue 15). Every first-party source keeps to it: the Postgres source counts the bytes each row
 * took on the wire, the DuckDB and files sources their text and blobs, RecordBatchBuilder (the
 * TypeScript source) the values it is given.
 */
export const BATCH_BYTES = 8 << 20;

/**
 * What a value counts toward BATCH_BYTES, near enough and cheaply: a string its length in UTF-16
 * units (what a one-byte string takes in memory), a blob its bytes, a list its elements, NULL
 * nothing, anything else 8.
 */
export function valueBytes(value: unknown): number {
  if (value === null || value === undefined) return 0;
  if (typeof value === "string") return value.length;
  if (value instanceof Uint8Array) return value.byteLength;
  if (Array.isArray(value)) {
    let bytes = 0;
    for (const item of value) bytes += valueBytes(item);
    return bytes;
  }
  return 8;
}
