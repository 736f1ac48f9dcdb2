import { cursorFromJSON } from "../cursor/cursor-value.js";
import { type ErrorCode, errorCodes } from "../errors/codes.js";
import { SqlloadError } from "../errors/sqlload-error.js";
import type { TableResult, TableStatus } from "./run-event.js";

/**
 * The inverse of `resultToJSON`: a table's result as another process reported it (a queue worker),
 * so the process that started the run renders, counts and exits exactly as for a local load.
 */
export function resultFromJSON(json: Readonly<Record<string, unknown>>): TableResult {
  const error = json.error as { code?: string; message?: string; hint?: string; retryable?: boolean; table?: string } | undefined;
  const status = json.status as TableStatus;
  return {
    table: String(json.table),
    source: String(json.source),
    key: String(json.key),
    status,
    rows: Number(json.rows ?? 0),
    dropped: Number(json.dropped ?? 0),
    windows: Number(json.windows ?? 0),
    positionBefore: cursorFromJSON(json.positionBefore) ?? null,
    positionAfter: cursorFromJSON(json.positionAfter) ?? null,
    ...(typeof json.caughtUp === "boolean" ? { caughtUp: json.caughtUp } : {}),
    ...(json.reload === "building" || json.reload === "swapped" ? { reload: json.reload } : {}),
    seconds: Number(json.seconds ?? 0),
    ...(error
      ? {
          error: new SqlloadError(
            error.code && error.code in errorCodes ? (error.code as ErrorCode) : "SL900",
            String(error.message ?? ""),
            {
              ...(error.hint ? { hint: error.hint } : {}),
              retryable: error.retryable === true,
              ...(error.table ? { table: error.table } : {}),
            },
          ),
        }
      : {}),
  };
}
