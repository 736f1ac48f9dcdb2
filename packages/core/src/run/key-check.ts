import { type ColumnVector, cellValue, type RecordBatch } from "../connector/record-batch.js";
import { SqlloadError } from "../errors/sqlload-error.js";
import { NumberSet } from "./number-set.js";

/** What the check keeps of a key (see `keyIds`). */
type KeyId = number | string | symbol;
const NULL_KEY = Symbol("NULL");

/**
 * Entries per Set: V8's Sets refuse a 16,777,217th entry ("Set maximum size exceeded"), and a
 * read of a merged table may hold more rows than that.
 */
const SHARD_SIZE = 1 << 23;

/**
 * Finds primary keys seen twice within one read: `merge` would otherwise keep an arbitrary row.
 * It holds every key of the read: numbers in a NumberSet (11 to 21 bytes a key), the others in Sets.
 */
export class DuplicateKeyCheck {
  private numbers = new NumberSet();
  private shards: Set<string | symbol>[] = [new Set()];

  constructor(
    private readonly keys: readonly string[],
    private readonly table: string,
    private readonly shardSize = SHARD_SIZE,
  ) {}

  /** Forgets the keys seen: a key repeated in a later commit is an ordinary update. */
  reset(): void {
    this.numbers = new NumberSet();
    this.shards = [new Set()];
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
    const idOf = keyIds(batch, indexes);
    for (let r = 0; r < batch.length; r++) {
      if (!this.add(idOf(r))) {
        const shown = this.keys.map((k, i) => `${k} = ${String(cellValue(batch, indexes[i] as number, r))}`).join(", ");
        throw new SqlloadError("SL301", `table ${this.table}: primary key (${shown}) appears more than once in one read`, {
          table: this.table,
        });
      }
    }
  }

  /** Adds a key; false when it was seen already. */
  private add(id: KeyId): boolean {
    if (typeof id === "number") return this.numbers.add(id);
    for (const shard of this.shards) if (shard.has(id)) return false;
    let last = this.shards[this.shards.length - 1] as Set<string | symbol>;
    if (last.size >= this.shardSize) this.shards.push((last = new Set()));
    last.add(id);
    return true;
  }
}

/**
 * How to read row r's key identity. A key of one column is kept as its value where it can be (no
 * string made per row: a merge of 1M rows spent 1.4 s making JSON of its keys): a number as it is,
 * a bigint as a number where a double holds it exactly, text of up to 12 characters as it is, NULL
 * as NULL_KEY. Other keys are JSON: longer text (V8 cuts a string of 13 characters or more out of a
 * larger one without copying it, so keeping a key from `split` or `substring` would keep all the
 * text it came from for the rest of the commit; JSON is a copy of its own, and never 12 characters
 * or fewer), bigints past 2^53 (as digits: two of them may round to one double), other types, and
 * keys of several columns. A column holds one type, so a JSON key never meets a raw one it could equal.
 */
function keyIds(batch: RecordBatch, indexes: readonly number[]): (row: number) => KeyId {
  if (indexes.length !== 1) return (r) => json(indexes.map((c) => cellValue(batch, c, r)));
  const c = indexes[0] as number;
  const { values, nulls } = batch.columns[c] as ColumnVector;
  return (r) => {
    if (nulls?.[r] === 1) return NULL_KEY;
    const value = values[r];
    switch (typeof value) {
      case "number":
        return value;
      case "string":
        return value.length <= 12 ? value : JSON.stringify(value);
      case "bigint": {
        const number = Number(value);
        return Number.isSafeInteger(number) ? number : `${value}`;
      }
      default:
        return json([cellValue(batch, c, r)]);
    }
  };
}

/**
 * Values as JSON, told apart where JSON itself would not: bigints as their digits and `n`, and
 * NaN and the infinities as their names (JSON writes all three, and NULL, as `null`).
 */
function json(values: readonly unknown[]): string {
  return JSON.stringify(values, (_, v) =>
    typeof v === "bigint" ? `${v}n` : typeof v === "number" && !Number.isFinite(v) ? String(v) : v,
  );
}
