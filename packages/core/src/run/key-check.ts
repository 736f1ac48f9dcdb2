import { cellValue, type RecordBatch } from "../connector/record-batch.js";
import { SqlloadError } from "../errors/sqlload-error.js";

/** Finds primary keys seen twice within one read: `merge` would otherwise keep an arbitrary row. */
export class DuplicateKeyCheck {
  private readonly seen = new Set<string>();

  constructor(
    private readonly keys: readonly string[],
    private readonly table: string,
  ) {}

  /** Forgets the keys seen: a key repeated in a later commit is an ordinary update. */
  reset(): void {
    this.seen.clear();
  }

  check(batch: RecordBatch): void {
    const indexes = this.keys.map((k) => {
      const i = batch.schema.findIndex((c) => c.name === k);
      if (i < 0)
        throw new SqlloadError("SL208", `table ${this.table}: primary key column "${k}" is not in the data`, {
          table: this.table,
        });
      return i;
    });
    for (let r = 0; r < batch.length; r++) {
      const values = indexes.map((c) => cellValue(batch, c, r));
      const id = JSON.stringify(values, (_, v) => (typeof v === "bigint" ? `${v}n` : v));
      if (this.seen.has(id)) {
        const shown = this.keys.map((k, i) => `${k} = ${String(values[i])}`).join(", ");
        throw new SqlloadError("SL301", `table ${this.table}: primary key (${shown}) appears more than once in one read`, {
          table: this.table,
        });
      }
      this.seen.add(id);
    }
  }
}
