import type { SourceConnection } from "./source.js";
import type { TargetConnection } from "./target.js";

/**
 * The version of the contracts in this package. A connector records the version it was built
 * for in its manifest; the CLI refuses one built for another major contract version.
 */
export const CORE_API_VERSION = 1;

export interface ConnectorManifest {
  /** The name `connector = "…"` uses in `sqlload.toml`. */
  readonly name: string;
  /** The package's version. */
  readonly version: string;
  /** `CORE_API_VERSION` of the core the connector was built against. */
  readonly coreApi: number;
  readonly description?: string;
}

export type ConfigValueType = "string" | "integer" | "number" | "boolean" | "string[]" | "table";

/** One key a connector accepts in `sqlload.toml`. */
export interface ConfigKeySpec {
  readonly key: string;
  readonly type: ConfigValueType;
  readonly description: string;
  readonly required?: boolean;
  /** Values shown redacted in every output (passwords, tokens, URLs with passwords). */
  readonly secret?: boolean;
  /** Allowed values, for strings. */
  readonly values?: readonly string[];
}

/** The keys a connector accepts: on its `[sources.X]` / `[target]` block and on each table. */
export interface ConnectorConfigSchema {
  readonly source?: readonly ConfigKeySpec[];
  readonly target?: readonly ConfigKeySpec[];
  readonly table?: readonly ConfigKeySpec[];
}

/** What a connector is given to connect: its validated options and where the project lives. */
export interface ConnectorContext {
  /** Keys of the block (without `connector`, and for sources without `tables`). */
  readonly options: Readonly<Record<string, unknown>>;
  /** The folder holding `sqlload.toml`; relative paths resolve against it. */
  readonly projectDir: string;
  /** The source's name (`app`), for sources. */
  readonly sourceName?: string;
  /** The target schema (`raw`), for targets. */
  readonly schema?: string;
}

export interface Connector {
  readonly manifest: ConnectorManifest;
  readonly configSchema: ConnectorConfigSchema;
  /**
   * Its sources offer tables of their own through `listTables` (a TypeScript module's exports),
   * so every command opens them to list tables. Default false: only `sqlload.toml` lists tables.
   */
  readonly offersTables?: boolean;
  readonly source?: (context: ConnectorContext) => Promise<SourceConnection>;
  readonly target?: (context: ConnectorContext) => Promise<TargetConnection>;
}

/** Declares a connector; a connector package default-exports the result. */
export function defineConnector(connector: {
  manifest: Omit<ConnectorManifest, "coreApi"> & { coreApi?: number };
  configSchema?: ConnectorConfigSchema;
  offersTables?: boolean;
  source?: Connector["source"];
  target?: Connector["target"];
}): Connector {
  return {
    manifest: { ...connector.manifest, coreApi: connector.manifest.coreApi ?? CORE_API_VERSION },
    configSchema: connector.configSchema ?? {},
    offersTables: connector.offersTables === true,
    ...(connector.source ? { source: connector.source } : {}),
    ...(connector.target ? { target: connector.target } : {}),
  };
}

export function isConnector(value: unknown): value is Connector {
  if (!value || typeof value !== "object") return false;
  const manifest = (value as Connector).manifest;
  return !!manifest && typeof manifest.name === "string" && typeof manifest.coreApi === "number";
}
