import { batchFromRows, type Column, type RecordBatch } from "@sqlload/core";
import type { InputRow } from "./harness.js";
import { utf8Batch } from "./utf8-batch.js";

/**
 * A batch of `rows` whose columns can no longer be read once `expire` is called: what a source
 * that reuses its memory gives (the Postgres source reads into socket buffers it uses again once
 * the engine asks for the next item). A unit that reads a batch after its `write` settled reads
 * whatever the source put there since; here it throws instead. With `utf8`, text columns come as
 * their bytes and decimal columns as scaled integers too (withUtf8), which expire the same way;
 * expiry also overwrites them, as the source's next reads would, so a unit that kept a view of them
 * stores garbage.
 */
export function expiringBatch(
  columns: readonly Column[],
  rows: readonly InputRow[],
  options: { utf8?: boolean } = {},
): { batch: RecordBatch; expire(): void } {
  const whole = batchFromRows(columns, rows);
  let expired = false;
  const live = <T>(value: T): T => {
    if (expired) {
      throw new Error(
        "a column of a batch was read after the unit's write() of it settled: a source may reuse a batch's memory then; keep heldBatch(batch) to write it later",
      );
    }
    return value;
  };
  const bytes = options.utf8 ? utf8Batch(whole, live) : undefined;
  const batch = bytes?.batch ?? {
    schema: whole.schema,
    length: whole.length,
    columns: whole.columns.map((c) => ({
      get values() {
        return live(c.values);
      },
      get nulls() {
        return live(c.nulls);
      },
    })),
  };
  return {
    batch,
    expire: () => {
      expired = true;
      for (const buffer of bytes?.buffers ?? []) buffer.fill(0xff);
      // Read after expiry, a kept array of scaled decimals says NULL everywhere.
      for (const scaled of bytes?.scaled ?? []) scaled.fill(Number.NaN);
    },
  };
}
