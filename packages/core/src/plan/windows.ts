import type { Duration } from "../config/duration.js";
import { isWholeDays } from "../config/duration.js";
import type { CursorRange } from "../connector/source.js";
import { type CursorValue, compareCursor, MICROS_PER_DAY } from "../cursor/cursor-value.js";
import { SqlloadError } from "../errors/sqlload-error.js";
import { formatCount } from "../text/format-count.js";

/** At most this many windows per table: more would make a plan nobody can read or resume sensibly. */
export const MAX_WINDOWS = 100_000;

/** Windows `[start + k·size, start + (k+1)·size)`, the last clamped to `end`. */
export interface WindowSpec {
  readonly start: CursorValue;
  readonly end: CursorValue;
  /** Microseconds for timestamps, days for dates, the step for integers. */
  readonly step: bigint;
  readonly count: number;
  /**
   * Where window 0 really starts when it also re-reads a lookback before `start`: windows stay
   * aligned to the logged window end (so a backfill still advances a whole window per window),
   * while the first one picks up late rows behind it.
   */
  readonly firstFrom?: CursorValue | undefined;
}

/** The step of a batch size for a cursor kind; throws SL115 when they do not fit together. */
export function windowStep(kind: CursorValue["kind"], size: Duration | bigint, table: string): bigint {
  if (kind === "integer") {
    if (typeof size !== "bigint") {
      throw new SqlloadError(
        "SL115",
        `table ${table} has an integer cursor; \`batch_size\` must be an integer, not "${size.text}"`,
        { table },
      );
    }
    return size;
  }
  if (typeof size === "bigint") {
    throw new SqlloadError(
      "SL115",
      `table ${table} has a ${kind} cursor; \`batch_size\` must be a duration such as "7d", not ${size}`,
      { table },
    );
  }
  if (kind === "date") {
    if (!isWholeDays(size)) {
      throw new SqlloadError("SL115", `table ${table} has a date cursor; \`batch_size\` "${size.text}" must be whole days`, {
        table,
      });
    }
    return size.micros / MICROS_PER_DAY;
  }
  if (kind === "timestamp") return size.micros;
  throw new SqlloadError("SL115", `table ${table} has a text cursor, which cannot be cut into windows; remove \`batch_size\``, {
    table,
  });
}

function toBig(value: CursorValue): bigint {
  if (value.kind === "text") throw new TypeError("text cursors have no windows");
  return BigInt(value.value);
}

function fromBig(kind: CursorValue["kind"], n: bigint): CursorValue {
  if (kind === "date") return { kind, value: Number(n) };
  if (kind === "integer" || kind === "timestamp") return { kind, value: n };
  throw new TypeError("text cursors have no windows");
}

/** Lays windows from `start` to `end`; throws SL203 beyond MAX_WINDOWS with a size that would fit. */
export function layWindows(start: CursorValue, end: CursorValue, step: bigint, table: string): WindowSpec {
  const span = toBig(end) - toBig(start);
  const count = span <= 0n ? 0 : Number((span + step - 1n) / step);
  if (count > MAX_WINDOWS) {
    const needed = (span + BigInt(MAX_WINDOWS) - 1n) / BigInt(MAX_WINDOWS);
    throw new SqlloadError(
      "SL203",
      `table ${table} would need ${formatCount(count)} windows, more than ${formatCount(MAX_WINDOWS)}`,
      {
        table,
        hint: `Use \`batch_size\` of at least ${suggestSize(start.kind, needed)}, or bound the read with \`--end-cursor\` or \`cursor_end\`.`,
      },
    );
  }
  return { start, end, step, count };
}

function suggestSize(kind: CursorValue["kind"], needed: bigint): string {
  if (kind === "integer") return String(needed);
  const days = kind === "date" ? needed : (needed + MICROS_PER_DAY - 1n) / MICROS_PER_DAY;
  if (kind === "timestamp" && needed < MICROS_PER_DAY) {
    const hours = (needed + 3_600_000_000n - 1n) / 3_600_000_000n;
    return `"${hours}h"`;
  }
  return `"${days}d"`;
}

/** Window k of a spec, its end clamped to the spec's end. */
export function windowAt(spec: WindowSpec, k: number): CursorRange {
  const from = toBig(spec.start) + BigInt(k) * spec.step;
  const to = from + spec.step;
  const end = toBig(spec.end);
  const first = k === 0 && spec.firstFrom ? spec.firstFrom : fromBig(spec.start.kind, from);
  return { from: first, to: fromBig(spec.start.kind, to < end ? to : end) };
}

/** The index of the window holding `value` (values before the start are in window 0). */
export function windowIndexOf(spec: WindowSpec, value: CursorValue): number {
  if (compareCursor(value, spec.start) <= 0) return 0;
  return Number((toBig(value) - toBig(spec.start)) / spec.step);
}

/** The next representable value: `append` reads strictly after the maximum, i.e. from its successor. */
export function successor(value: CursorValue): CursorValue | undefined {
  if (value.kind === "text") return undefined;
  return fromBig(value.kind, toBig(value) + 1n);
}
