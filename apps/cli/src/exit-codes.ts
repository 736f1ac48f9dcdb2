import { isConfigError, isSqlloadError, type TableResult } from "@sqlload/core";

/** The exit codes of SPEC §8, in one place. */
export const ExitCode = {
  ok: 0,
  tableFailed: 1,
  usage: 2,
  notCaughtUp: 3,
  retryLater: 75,
  interrupted: 130,
} as const;

/** Errors found before anything connects or reads (config, selection, flags) are usage errors. */
export function exitCodeForError(error: unknown): number {
  if (!isSqlloadError(error)) return ExitCode.tableFailed;
  if (error.code === "SL307") return ExitCode.interrupted;
  if (error.retryable) return ExitCode.retryLater;
  const n = Number(error.code.slice(2));
  return n < 300 || (n >= 400 && n < 500) ? ExitCode.usage : ExitCode.tableFailed;
}

export function exitCodeForResults(results: readonly TableResult[], interrupted: boolean): number {
  if (interrupted) return ExitCode.interrupted;
  // A cursor-kind rule only the source's metadata could check is still a config error.
  if (results.some((r) => r.status === "failed" && isConfigError(r.error))) return ExitCode.usage;
  if (results.some((r) => r.status === "failed")) return ExitCode.tableFailed;
  if (results.some((r) => r.status === "skipped")) return ExitCode.retryLater;
  return ExitCode.ok;
}
