import { MICROS_PER_DAY } from "../cursor/cursor-value.js";

/** A parsed duration, kept exact in microseconds. */
export interface Duration {
  readonly micros: bigint;
  /** As written: `"1d12h"`. */
  readonly text: string;
}

const UNIT_MICROS: Record<string, bigint> = {
  s: 1_000_000n,
  m: 60_000_000n,
  h: 3_600_000_000n,
  d: MICROS_PER_DAY,
  w: 7n * MICROS_PER_DAY,
};

/** Parses `"1h"`, `"7d"`, `"1d12h"`: whole numbers with units s m h d w, each unit at most once. */
export function parseDuration(text: string): Duration | undefined {
  if (!/^(\d+[smhdw])+$/.test(text)) return undefined;
  let micros = 0n;
  const seen = new Set<string>();
  for (const [, amount, unit] of text.matchAll(/(\d+)([smhdw])/g)) {
    if (!unit || !amount || seen.has(unit)) return undefined;
    seen.add(unit);
    micros += BigInt(amount) * (UNIT_MICROS[unit] ?? 0n);
  }
  return micros > 0n ? { micros, text } : undefined;
}

/** Whole days in a duration, rounded up (a date cursor moves back whole days). */
export function durationDaysCeil(duration: Duration): number {
  return Number((duration.micros + MICROS_PER_DAY - 1n) / MICROS_PER_DAY);
}

export function isWholeDays(duration: Duration): boolean {
  return duration.micros % MICROS_PER_DAY === 0n;
}

/** `7days`, `1day`, `12hours`, `1day12hours`: the form `plan` prints on its batch line. */
export function describeDuration(duration: Duration): string {
  const parts: string[] = [];
  let rest = duration.micros;
  for (const [unit, name] of [
    ["d", "day"],
    ["h", "hour"],
    ["m", "minute"],
    ["s", "second"],
  ] as const) {
    const size = UNIT_MICROS[unit] as bigint;
    const n = rest / size;
    rest %= size;
    if (n > 0n) parts.push(`${n}${name}${n === 1n ? "" : "s"}`);
  }
  return parts.join("");
}
