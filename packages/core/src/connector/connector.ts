import { defaultTargetCapabilities, type TargetCapabilities } from "./capabilities.js";
import { declarationProblems, refuse } from "./capability-check.js";
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
  /**
   * What the target's connections will declare, from the target block's options alone: lets
   * `check`, `plan` and `load` refuse what the target cannot do (a logged table on a
   * `data-then-log` target) before anything connects. A connection declaring otherwise is refused.
   * Absent, or undefined for some settings (a commit model detected on connecting): known only once connected.
   */
  readonly targetCapabilities?: (options: Readonly<Record<string, unknown>>) => TargetCapabilities | undefined;
  /**
   * Whether opening the target in this context changes nothing a user could see and settles at
   * once: a DuckDB file that already exists. A run may then open the target before it checks the
   * tables, and close it unused when a check fails: it waits for `target()`, then checks while the
   * connection's `connect()` completes (ProjectSession.openTargetEarly). Absent or false: the
   * target opens once the checks pass (opening a DuckDB file that does not exist yet creates it; a
   * cloud warehouse may start compute; a server that does not answer would hold a run that already
   * failed its checks until the connection gave up).
   */
  readonly targetOpenIsInert?: (context: ConnectorContext) => boolean;
}

type DeclaredTargetCapabilities =
  | Partial<TargetCapabilities>
  | ((options: Readonly<Record<string, unknown>>) => Partial<TargetCapabilities> | undefined);

/** Declares a connector; a connector package default-exports the result. */
export function defineConnector(connector: {
  manifest: Omit<ConnectorManifest, "coreApi"> & { coreApi?: number };
  configSchema?: ConnectorConfigSchema;
  offersTables?: boolean;
  source?: Connector["source"];
  target?: Connector["target"];
  /** See `Connector.targetCapabilities`; the defaults fill in what is not given. */
  targetCapabilities?: DeclaredTargetCapabilities;
  targetOpenIsInert?: Connector["targetOpenIsInert"];
}): Connector {
  const declared = connector.targetCapabilities;
  const result: Connector = {
    manifest: { ...connector.manifest, coreApi: connector.manifest.coreApi ?? CORE_API_VERSION },
    configSchema: connector.configSchema ?? {},
    offersTables: connector.offersTables === true,
    ...(connector.source ? { source: connector.source } : {}),
    ...(connector.target ? { target: connector.target } : {}),
    ...(connector.targetOpenIsInert ? { targetOpenIsInert: connector.targetOpenIsInert } : {}),
    ...(declared
      ? {
          targetCapabilities: (options: Readonly<Record<string, unknown>>) => {
            const given = typeof declared === "function" ? declared(options) : declared;
            return given ? { ...defaultTargetCapabilities, ...given } : undefined;
          },
        }
      : {}),
  };
  checkConnector(result);
  return result;
}

/**
 * Refuses a connector whose declaration cannot hold, with SL406 naming it: capabilities declared
 * for a target it does not have, or values outside the contract. Run when the connector is
 * defined (its package is loaded) and by the CLI's discovery for connectors built without
 * `defineConnector`; a connection's methods are compared with its declaration when it opens.
 */
export function checkConnector(connector: Connector, packageName?: string): void {
  const owner = `connector "${connector.manifest.name}"${packageName ? ` (${packageName})` : ""}`;
  if (connector.targetCapabilities && !connector.target) {
    refuse(owner, "declaration", ["it declares target capabilities but has no target"]);
  }
  if (connector.targetOpenIsInert && !connector.target) {
    refuse(owner, "declaration", ["it says how its target opens but has no target"]);
  }
  // A declaration that depends on options is checked for empty options here (when it gives an
  // answer for them) and for the real options on connecting.
  let declared: TargetCapabilities | undefined;
  try {
    declared = connector.targetCapabilities?.({});
  } catch {
    return;
  }
  const problems = declared ? declarationProblems(declared) : [];
  if (problems.length > 0) refuse(owner, "target", problems);
}

export function isConnector(value: unknown): value is Connector {
  if (!value || typeof value !== "object") return false;
  const manifest = (value as Connector).manifest;
  return !!manifest && typeof manifest.name === "string" && typeof manifest.coreApi === "number";
}
