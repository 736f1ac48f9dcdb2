import { type ErrorCategory, errorCategory, isConfigError, isSqlloadError, type TableResult } from "@sqlload/core";

/** The exit codes of SPEC §8, in one place. */
export const ExitCode = {
  ok: 0,
  tableFailed: 1,
  usage: 2,
  notCaughtUp: 3,
  retryLater: 75,
  interrupted: 130,
} as const;

const exitOfCategory: Readonly<Record<ErrorCategory, number>> = {
  config: ExitCode.usage,
  usage: ExitCode.usage,
  table: ExitCode.tableFailed,
  retry: ExitCode.retryLater,
  interrupt: ExitCode.interrupted,
  internal: ExitCode.tableFailed,
};

/**
 * The exit code of an error that ended a command, from its code's category. A raise site may mark
 * an error retryable that its code's category is not (a source read cut by a lost connection):
 * that error, too, leaves the table unchanged and exits 75.
 */
export function exitCodeForError(error: unknown): number {
  if (!isSqlloadError(error)) return ExitCode.tableFailed;
  const category = errorCategory(error.code);
  if (category !== "interrupt" && error.retryable) return ExitCode.retryLater;
  return exitOfCategory[category];
}

export function exitCodeForResults(results: readonly TableResult[], interrupted: boolean): number {
  if (interrupted) return ExitCode.interrupted;
  // A cursor-kind rule only the source's metadata could check is still a config error.
  if (results.some((r) => r.status === "failed" && isConfigError(r.error))) return ExitCode.usage;
  if (results.some((r) => r.status === "failed")) return ExitCode.tableFailed;
  if (results.some((r) => r.status === "skipped")) return ExitCode.retryLater;
  return ExitCode.ok;
}
