import {
  type Column,
  type ColumnVector,
  formatLogicalType,
  type LogicalType,
  type RecordBatch,
  SqlloadError,
  storageOf,
} from "@sqlload/core";
import {
  encodeNumeric,
  encodeUuid,
  LITTLE_ENDIAN,
  numericSizeBound,
  PG_EPOCH_DAYS,
  PG_EPOCH_MICROS,
  PG_EPOCH_MICROS_BIG,
  TWO_32,
  writeNumeric,
} from "./copy-binary.js";
import {
  DATE_INFINITY,
  DATE_MINUS_INFINITY,
  fitsInto,
  type PgColumn,
  TIMESTAMP_INFINITY,
  TIMESTAMP_MINUS_INFINITY,
  type WireType,
} from "./postgres-dialect.js";

const CHUNK = 1 << 20;

/**
 * A growing output of ~1 MB chunks; a chunk handed out is never written again. A `contiguous`
 * writer grows one buffer instead, so a length written first can be filled in at the end.
 */
class Writer {
  buf: Buffer;
  view: DataView;
  pos = 0;
  private chunks: Buffer[] = [];

  constructor(
    private readonly chunk = CHUNK,
    private readonly contiguous = false,
  ) {
    this.buf = Buffer.allocUnsafe(chunk);
    this.view = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength);
  }

  ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    if (this.contiguous) {
      const grown = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n));
      this.buf.copy(grown, 0, 0, this.pos);
      this.buf = grown;
      this.view = new DataView(grown.buffer, grown.byteOffset, grown.byteLength);
      return;
    }
    if (this.pos > 0) this.chunks.push(this.buf.subarray(0, this.pos));
    this.buf = Buffer.allocUnsafe(Math.max(this.chunk, n));
    this.view = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength);
    this.pos = 0;
  }

  int16(v: number): void {
    this.ensure(2);
    this.view.setInt16(this.pos, v);
    this.pos += 2;
  }

  int32(v: number): void {
    this.ensure(4);
    this.view.setInt32(this.pos, v);
    this.pos += 4;
  }

  /** A length-prefixed UTF-8 string: room for the worst case, then the real length written back. */
  text(s: string, prefix?: number): void {
    const extra = prefix === undefined ? 0 : 1;
    this.ensure(4 + extra + s.length * 3);
    const at = this.pos;
    this.pos += 4;
    if (prefix !== undefined) this.buf[this.pos++] = prefix;
    const written = this.buf.write(s, this.pos, "utf8");
    this.pos += written;
    this.view.setInt32(at, written + extra);
  }

  bytes(b: Uint8Array): void {
    this.ensure(4 + b.length);
    this.view.setInt32(this.pos, b.length);
    this.buf.set(b, this.pos + 4);
    this.pos += 4 + b.length;
  }

  take(): Buffer[] {
    if (this.pos > 0) this.chunks.push(this.buf.subarray(0, this.pos));
    const out = this.chunks;
    this.chunks = [];
    this.buf = Buffer.allocUnsafe(this.chunk);
    this.view = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength);
    this.pos = 0;
    return out;
  }
}

/** Writes field `r` of a column (its length and bytes). */
type FieldEncoder = (w: Writer, r: number) => void;

/**
 * Encodes RecordBatch rows into COPY binary rows for a target's columns. Each target column is
 * fed by one batch column (or NULL when the batch lacks it), converted to the target's exact
 * binary type: binary COPY has no implicit casts, so an int32 value bound for a bigint column
 * is sent as eight bytes.
 */
export class CopyBinaryEncoder {
  private readonly writer = new Writer();

  constructor(
    private readonly targets: readonly PgColumn[],
    private readonly table: string,
  ) {}

  /** The batch's rows as COPY rows (no header or trailer), in chunks of about 1 MB. */
  encode(batch: RecordBatch): Buffer[] {
    const w = this.writer;
    const encoders = this.targets.map((target) => {
      const index = batch.schema.findIndex((c) => c.name === target.name);
      if (index < 0) return undefined;
      return fieldEncoder(target, batch.schema[index] as Column, batch.columns[index] as ColumnVector, this.table);
    });
    const nulls = this.targets.map((target) => {
      const index = batch.schema.findIndex((c) => c.name === target.name);
      return index < 0 ? undefined : batch.columns[index]?.nulls;
    });
    const ncols = this.targets.length;
    for (let r = 0; r < batch.length; r++) {
      w.int16(ncols);
      for (let c = 0; c < ncols; c++) {
        const encode = encoders[c];
        const n = nulls[c];
        if (encode === undefined || (n !== undefined && n[r] === 1)) w.int32(-1);
        else encode(w, r);
      }
    }
    return w.take();
  }
}

function fieldEncoder(target: PgColumn, source: Column, vector: ColumnVector, table: string): FieldEncoder {
  if (target.wire.kind === "unsupported" || !fitsInto(source.type, target)) {
    throw new SqlloadError(
      "SL302",
      `column "${target.name}" of ${table} is ${target.declared} in the target, which cannot take ${formatLogicalType(source.type)} values`,
    );
  }
  const values = vector.values;
  const storage = storageOf(source.type);
  const bad = (r: number, why: string): never => {
    throw new SqlloadError("SL300", `column "${target.name}" of ${table}, row ${r + 1}: ${why}`);
  };
  switch (target.wire.kind) {
    case "bool": {
      const v = values as Uint8Array;
      return (w, r) => {
        w.ensure(5);
        w.view.setInt32(w.pos, 1);
        w.buf[w.pos + 4] = v[r] ? 1 : 0;
        w.pos += 5;
      };
    }
    case "int2": {
      const v = values as Int32Array;
      return (w, r) => {
        w.ensure(6);
        w.view.setInt32(w.pos, 2);
        w.view.setInt16(w.pos + 4, v[r] as number);
        w.pos += 6;
      };
    }
    case "int4": {
      const v = values as Int32Array;
      return (w, r) => {
        w.ensure(8);
        w.view.setInt32(w.pos, 4);
        w.view.setInt32(w.pos + 4, v[r] as number);
        w.pos += 8;
      };
    }
    case "int8":
    case "time": {
      if (storage === "i32") {
        const v = values as Int32Array;
        return (w, r) => {
          const x = v[r] as number;
          w.ensure(12);
          w.view.setInt32(w.pos, 8);
          w.view.setInt32(w.pos + 4, x < 0 ? -1 : 0);
          w.view.setInt32(w.pos + 8, x);
          w.pos += 12;
        };
      }
      const v = values as BigInt64Array;
      const words = LITTLE_ENDIAN ? new Int32Array(v.buffer, v.byteOffset, v.length * 2) : undefined;
      return (w, r) => {
        w.ensure(12);
        w.view.setInt32(w.pos, 8);
        if (words) {
          w.view.setInt32(w.pos + 4, words[2 * r + 1] as number);
          w.view.setInt32(w.pos + 8, words[2 * r] as number);
        } else w.view.setBigInt64(w.pos + 4, v[r] as bigint);
        w.pos += 12;
      };
    }
    case "float4": {
      const v = values as Float64Array;
      return (w, r) => {
        w.ensure(8);
        w.view.setInt32(w.pos, 4);
        w.view.setFloat32(w.pos + 4, v[r] as number);
        w.pos += 8;
      };
    }
    case "float8": {
      const v = values as ArrayLike<number>;
      return (w, r) => {
        w.ensure(12);
        w.view.setInt32(w.pos, 8);
        w.view.setFloat64(w.pos + 4, v[r] as number);
        w.pos += 12;
      };
    }
    case "numeric": {
      const v = values as ArrayLike<unknown>;
      return (w, r) => {
        const s = String(v[r]);
        w.ensure(4 + numericSizeBound(s.length));
        const size = writeNumeric(s, w.view, w.pos + 4);
        if (size < 0) bad(r, `${JSON.stringify(s)} is not a decimal number`);
        w.view.setInt32(w.pos, size);
        w.pos += 4 + size;
      };
    }
    case "text":
    case "json": {
      const v = values as ArrayLike<string>;
      return (w, r) => w.text(v[r] as string);
    }
    case "jsonb": {
      const v = values as ArrayLike<string>;
      return (w, r) => w.text(v[r] as string, 1);
    }
    case "bytea": {
      const v = values as ArrayLike<Uint8Array>;
      return (w, r) => w.bytes(v[r] as Uint8Array);
    }
    case "uuid": {
      const v = values as ArrayLike<string>;
      return (w, r) => {
        w.ensure(20);
        w.view.setInt32(w.pos, 16);
        if (!encodeUuid(v[r] as string, w.buf, w.pos + 4)) bad(r, `${JSON.stringify(v[r])} is not a UUID`);
        w.pos += 20;
      };
    }
    case "date": {
      const v = values as Int32Array;
      return (w, r) => {
        w.ensure(8);
        w.view.setInt32(w.pos, 4);
        w.view.setInt32(w.pos + 4, encodeDate(v[r] as number));
        w.pos += 8;
      };
    }
    case "timestamp":
    case "timestamptz": {
      const v = values as BigInt64Array;
      const words = LITTLE_ENDIAN ? new Int32Array(v.buffer, v.byteOffset, v.length * 2) : undefined;
      return (w, r) => {
        w.ensure(12);
        w.view.setInt32(w.pos, 8);
        const hi = words ? (words[2 * r + 1] as number) : 0x7fffffff;
        // Near 1970 (±2^52 µs) Number arithmetic is exact; elsewhere, and for the infinities, BigInt.
        if (words && hi > -0x100000 && hi < 0x100000) {
          const x = hi * TWO_32 + ((words[2 * r] as number) >>> 0) - PG_EPOCH_MICROS;
          const high = Math.floor(x / TWO_32);
          w.view.setInt32(w.pos + 4, high);
          w.view.setInt32(w.pos + 8, (x - high * TWO_32) | 0);
        } else w.view.setBigInt64(w.pos + 4, encodeTimestamp(v[r] as bigint));
        w.pos += 12;
      };
    }
    case "array": {
      const v = values as ArrayLike<unknown[]>;
      const wire = target.wire;
      const element = elementType(source.type);
      return (w, r) => {
        scratch.pos = 0;
        encodeArray(scratch, wire, element, v[r] as unknown[], (why) => bad(r, why));
        w.bytes(scratch.buf.subarray(0, scratch.pos));
      };
    }
  }
}

/** Arrays are built here first: their length comes before them and is known only at the end. */
const scratch = new Writer(4096, true);

function elementType(type: LogicalType): LogicalType {
  return type.kind === "list" ? elementType(type.element) : type;
}

function encodeDate(days: number): number {
  return days === DATE_INFINITY || days === DATE_MINUS_INFINITY ? days : days - PG_EPOCH_DAYS;
}

function encodeTimestamp(v: bigint): bigint {
  if (v === TIMESTAMP_INFINITY || v === TIMESTAMP_MINUS_INFINITY) return v;
  return v - PG_EPOCH_MICROS_BIG;
}

/**
 * A list as a Postgres array body (without its length): nested lists become dimensions, which
 * Postgres requires to be rectangular. Elements take the generic (slower) path; arrays are rarely
 * the bulk of a table.
 */
function encodeArray(
  w: Writer,
  wire: Extract<WireType, { kind: "array" }>,
  element: LogicalType,
  value: unknown[],
  bad: (why: string) => never,
): void {
  const dims: number[] = [];
  for (let level: unknown = value; Array.isArray(level); level = level[0]) {
    dims.push(level.length);
    if (level.length === 0) break;
  }
  const flat: unknown[] = [];
  const walk = (node: unknown, depth: number): void => {
    if (depth === dims.length) {
      if (Array.isArray(node)) bad("a list nests deeper in some elements than in others");
      flat.push(node);
      return;
    }
    if (!Array.isArray(node) || node.length !== dims[depth]) bad("Postgres arrays must be rectangular (sub-lists of one length)");
    for (const item of node as unknown[]) walk(item, depth + 1);
  };
  const empty = dims.length === 0 || dims.includes(0);
  if (!empty) walk(value, 0);
  const ndim = empty ? 0 : dims.length;
  w.int32(ndim);
  w.int32(flat.some((x) => x === null || x === undefined) ? 1 : 0);
  w.int32(wire.elementOid);
  for (let d = 0; d < ndim; d++) {
    w.int32(dims[d] as number);
    w.int32(1);
  }
  for (const item of flat) {
    if (item === null || item === undefined) w.int32(-1);
    else encodeScalar(w, wire.element, element, item, bad);
  }
}

function encodeScalar(w: Writer, wire: WireType, type: LogicalType, v: unknown, bad: (why: string) => never): void {
  switch (wire.kind) {
    case "bool":
      w.int32(1);
      w.ensure(1);
      w.buf[w.pos++] = v ? 1 : 0;
      return;
    case "int2":
      w.int32(2);
      w.int16(Number(v));
      return;
    case "int4":
      w.int32(4);
      w.int32(Number(v));
      return;
    case "int8":
    case "time":
      w.int32(8);
      w.ensure(8);
      w.view.setBigInt64(w.pos, BigInt(v as bigint | number));
      w.pos += 8;
      return;
    case "float4":
      w.int32(4);
      w.ensure(4);
      w.view.setFloat32(w.pos, Number(v));
      w.pos += 4;
      return;
    case "float8":
      w.int32(8);
      w.ensure(8);
      w.view.setFloat64(w.pos, Number(v));
      w.pos += 8;
      return;
    case "numeric": {
      const encoded = encodeNumeric(String(v));
      if (!encoded) bad(`${JSON.stringify(String(v))} is not a decimal number`);
      w.bytes(encoded as Buffer);
      return;
    }
    case "text":
    case "json":
      w.text(String(v));
      return;
    case "jsonb":
      w.text(String(v), 1);
      return;
    case "bytea":
      w.bytes(v as Uint8Array);
      return;
    case "uuid":
      w.int32(16);
      w.ensure(16);
      if (!encodeUuid(String(v), w.buf, w.pos)) bad(`${JSON.stringify(v)} is not a UUID`);
      w.pos += 16;
      return;
    case "date":
      w.int32(4);
      w.int32(encodeDate(Number(v)));
      return;
    case "timestamp":
    case "timestamptz":
      w.int32(8);
      w.ensure(8);
      w.view.setBigInt64(w.pos, encodeTimestamp(BigInt(v as bigint)));
      w.pos += 8;
      return;
    case "array":
    case "unsupported":
      bad(`a ${formatLogicalType(type)} element cannot be written as ${wire.kind === "array" ? "a nested array" : wire.name}`);
  }
}
