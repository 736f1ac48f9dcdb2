import { type ColumnVector, cellValue, type RecordBatch } from "../connector/record-batch.js";
import { SqlloadError } from "../errors/sqlload-error.js";
import { NumberSet } from "./number-set.js";

/**
 * A key's identity: a number or a string as the key's one column holds it (a bigint as a number
 * when a double holds it exactly, as its digits otherwise), NULL_KEY for NULL, and for a key of
 * several columns (or of a type without a primitive value) its values as JSON.
 */
type KeyId = number | string | symbol;
const NULL_KEY = Symbol("NULL");

/**
 * Entries per Set: V8's Sets refuse a 16,777,217th entry ("Set maximum size exceeded"), and a
 * read of a merged table may hold more rows than that.
 */
const SHARD_SIZE = 1 << 23;

/**
 * Finds primary keys seen twice within one read: `merge` would otherwise keep an arbitrary row.
 * It holds every key of the read: numbers in a NumberSet (about 13 bytes a key), the others in Sets.
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
 * How to read row r's key identity. A key of one column whose values are numbers, bigints or
 * strings is its value as it is (no string made per row: a merge of 1M rows spent 1.4 s making
 * JSON of its keys, and held them all); other keys go through JSON, bigints as digits.
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
      case "string":
        return value;
      case "bigint": {
        // Two bigints past 2^53 may round to one double: those keep their digits (a string, never
        // equal to a number; a column holds one type, so never equal to a text key either).
        const number = Number(value);
        return Number.isSafeInteger(number) ? number : String(value);
      }
      default:
        return json([cellValue(batch, c, r)]);
    }
  };
}

function json(values: readonly unknown[]): string {
  return JSON.stringify(values, (_, v) => (typeof v === "bigint" ? `${v}n` : v));
}
