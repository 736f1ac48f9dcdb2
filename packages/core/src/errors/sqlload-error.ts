import { type ErrorCode, errorCodes } from "./codes.js";

/** Where in the project file an error points. */
export interface ErrorLocation {
  readonly file: string;
  readonly line?: number;
  /** The dotted key path, as written in the file: `sources.app.tables."public.orders".lookback`. */
  readonly key?: string;
}

export interface SqlloadErrorOptions {
  readonly hint?: string;
  readonly retryable?: boolean;
  readonly cause?: unknown;
  readonly location?: ErrorLocation;
  /** The target table (`raw.app__orders`) or table key the error belongs to. */
  readonly table?: string;
}

/** The one error class sqlload raises on purpose; anything else reaching the CLI is a bug. */
export class SqlloadError extends Error {
  override readonly name = "SqlloadError";
  readonly code: ErrorCode;
  readonly hint: string;
  readonly retryable: boolean;
  readonly location: ErrorLocation | undefined;
  readonly table: string | undefined;

  constructor(code: ErrorCode, message: string, options: SqlloadErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    const info = errorCodes[code];
    this.code = code;
    this.hint = options.hint ?? info.hint;
    this.retryable = options.retryable ?? ("retryable" in info ? info.retryable : false);
    this.location = options.location;
    this.table = options.table;
  }

  /** `sqlload.toml:12 sources.app.tables."public.orders".lookbak` */
  get where(): string | undefined {
    const loc = this.location;
    if (!loc) return undefined;
    return `${loc.file}${loc.line ? `:${loc.line}` : ""}${loc.key ? ` ${loc.key}` : ""}`;
  }

  /** The full text shown to a person: code, place, message, hint, and the cause's message. */
  format(): string {
    const lines = [`error ${this.code}: ${this.message}`];
    if (this.where) lines.push(`  at ${this.where}`);
    if (this.cause instanceof Error && this.cause.message && !this.message.includes(this.cause.message)) {
      lines.push(`  cause: ${this.cause.message}`);
    }
    lines.push(`  hint: ${this.hint}`);
    return lines.join("\n");
  }

  toJSON(): Record<string, unknown> {
    return {
      code: this.code,
      message: this.message,
      hint: this.hint,
      retryable: this.retryable,
      ...(this.table ? { table: this.table } : {}),
      ...(this.where ? { where: this.where } : {}),
    };
  }
}

export function isSqlloadError(value: unknown): value is SqlloadError {
  return value instanceof SqlloadError || (value instanceof Error && value.name === "SqlloadError" && "code" in value);
}

/** Wraps anything thrown into a SqlloadError of the given code, keeping SqlloadErrors as they are. */
export function asSqlloadError(
  error: unknown,
  code: ErrorCode,
  message: string,
  options: SqlloadErrorOptions = {},
): SqlloadError {
  if (isSqlloadError(error)) return error;
  const detail = error instanceof Error ? error.message : String(error);
  return new SqlloadError(code, `${message}: ${detail}`, { ...options, cause: error });
}
