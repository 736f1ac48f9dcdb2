import { type Duration, durationDaysCeil } from "../config/duration.js";
import type { TableSettings } from "../config/table-settings.js";
import type { WriteStrategy } from "../connector/target.js";
import type { CursorKind } from "../cursor/cursor-kind.js";
import { type CursorValue, compareCursor, cursorEquals, parseCursor } from "../cursor/cursor-value.js";
import type { PendingRollback } from "../state/rollback.js";

/** Why a read starts where it does: the steps of SPEC §5, in order. */
export type StartReason =
  | "--start-cursor"
  | "now minus lookback"
  | "window position"
  | "rollback"
  | "destination maximum"
  | "cursor_start"
  | "everything";

export interface ReadStart {
  readonly reason: StartReason;
  /** Undefined when everything is read. */
  readonly value?: CursorValue | undefined;
  /** false: strictly after `value` (`append` from the destination maximum). */
  readonly inclusive: boolean;
  /** The destination maximum the start was derived from, before lookback. */
  readonly basis?: CursorValue | undefined;
  /** From a window position: the logged window end windows stay aligned to (`value` is then that end minus lookback). */
  readonly windowEnd?: CursorValue | undefined;
  /** From a pending rollback: the run it continues from and why. */
  readonly rollback?: { readonly runId: string; readonly reason: string } | undefined;
}

export interface ReadStartInput {
  readonly kind: CursorKind;
  readonly settings: TableSettings;
  readonly strategy: WriteStrategy;
  readonly startCursor?: string | undefined;
  readonly reload: boolean;
  readonly targetMax: CursorValue | null;
  /** From the run log: the end of the last committed window and the target's maximum then (§9). */
  readonly loggedWindow?: { readonly windowEnd: CursorValue; readonly cursor: CursorValue | null } | undefined;
  readonly windowed: boolean;
  /** From the run log: a rollback the next run follows while the target's maximum is still `dataMax`. */
  readonly rollback?: PendingRollback | undefined;
  readonly now: Date;
}

/** Microseconds since the epoch of a JS date. */
export function nowMicros(now: Date): bigint {
  return BigInt(now.getTime()) * 1000n;
}

/** Days since the epoch of the UTC day holding `now`. */
export function todayDays(now: Date): number {
  return Math.floor(now.getTime() / 86_400_000);
}

/** Moves a time cursor back by a duration; a date cursor moves back whole days, rounded up. */
export function minusDuration(value: CursorValue, duration: Duration): CursorValue {
  if (value.kind === "date") return { kind: "date", value: value.value - durationDaysCeil(duration) };
  if (value.kind === "timestamp") return { kind: "timestamp", value: value.value - duration.micros };
  return value;
}

/** The run's start as a cursor of a time kind. */
export function nowAs(kind: "date" | "timestamp", now: Date): CursorValue {
  return kind === "date" ? { kind, value: todayDays(now) } : { kind, value: nowMicros(now) };
}

/** Where a read starts: SPEC §5, the first that applies. */
export function readStart(input: ReadStartInput): ReadStart {
  const { kind, settings, strategy } = input;
  // `replace` reads everything on every run: cursor settings only order its read.
  if (strategy === "replace") return { reason: "everything", inclusive: true };
  if (input.startCursor !== undefined) {
    return { reason: "--start-cursor", value: parseCursor(kind, input.startCursor, "--start-cursor"), inclusive: true };
  }
  if (!input.reload && settings.lookbackFrom === "now" && settings.lookback && (kind === "date" || kind === "timestamp")) {
    return { reason: "now minus lookback", value: minusDuration(nowAs(kind, input.now), settings.lookback), inclusive: true };
  }
  if (!input.reload && input.targetMax) {
    const max = input.targetMax;
    const rollback = input.rollback;
    if (rollback && cursorEquals(rollback.dataMax, max)) {
      const windowEnd = input.windowed ? rollback.windowEnd : undefined;
      const value = settings.lookback ? minusDuration(rollback.from, settings.lookback) : rollback.from;
      const inclusive = strategy !== "append" || settings.appendCursorInclusive === true || windowEnd !== undefined;
      return {
        reason: "rollback",
        value,
        inclusive,
        basis: max,
        windowEnd,
        rollback: { runId: rollback.runId, reason: rollback.reason },
      };
    }
    const logged = input.loggedWindow;
    if (input.windowed && logged && cursorEquals(logged.cursor, max) && compareCursor(logged.windowEnd, max) >= 0) {
      const value = settings.lookback ? minusDuration(logged.windowEnd, settings.lookback) : logged.windowEnd;
      return { reason: "window position", value, inclusive: true, basis: max, windowEnd: logged.windowEnd };
    }
    if (strategy === "append") {
      return { reason: "destination maximum", value: max, inclusive: settings.appendCursorInclusive === true, basis: max };
    }
    const value = settings.lookback ? minusDuration(max, settings.lookback) : max;
    return { reason: "destination maximum", value, inclusive: true, basis: max };
  }
  if (settings.cursorStart !== undefined) {
    return { reason: "cursor_start", value: parseCursor(kind, settings.cursorStart, "cursor_start"), inclusive: true };
  }
  return { reason: "everything", inclusive: true };
}
