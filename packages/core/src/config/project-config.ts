import type { SourceTableRef, TargetTableRef } from "../connector/table-ref.js";
import type { ErrorLocation } from "../errors/sqlload-error.js";
import type { ConnectPolicy } from "../run/connect-retry.js";
import type { RateLimit } from "./rate-limit.js";
import type { SettingLocator, TableSettings } from "./table-settings.js";

export interface TargetConfig {
  readonly connector: string;
  /** Schema tables land in; default `raw`. */
  readonly schema: string;
  /** The connector's own keys, validated by its schema. */
  readonly options: Readonly<Record<string, unknown>>;
  /** How core opens the connection: `connect_retries`, `connect_timeout`. */
  readonly connect: ConnectPolicy;
  readonly location: ErrorLocation;
}

export interface TableConfig {
  readonly source: string;
  readonly ref: SourceTableRef;
  readonly target: TargetTableRef;
  readonly settings: TableSettings;
  /** Connector-specific table keys. */
  readonly options: Readonly<Record<string, unknown>>;
  readonly where: SettingLocator;
}

export interface SourceConfig {
  readonly name: string;
  readonly connector: string;
  readonly options: Readonly<Record<string, unknown>>;
  /** `rate_limit` of the source: shared by its tables within a run, unless a table sets its own. */
  readonly rateLimit?: RateLimit | undefined;
  /** Tables listed in `sqlload.toml`. A TypeScript source may add tables of its own (its module's exports). */
  readonly tables: readonly TableConfig[];
  /** How core opens the connection: `connect_retries`, `connect_timeout`. */
  readonly connect: ConnectPolicy;
  readonly location: ErrorLocation;
}

export interface ProjectConfig {
  /** Absolute path of `sqlload.toml`. */
  readonly file: string;
  /** The project folder: relative paths resolve against it; `.sqlload/` lives in it. */
  readonly dir: string;
  readonly target: TargetConfig;
  readonly sources: readonly SourceConfig[];
  /** Keys whose values must never be printed, with their values, for redaction. */
  readonly secrets: readonly string[];
}
