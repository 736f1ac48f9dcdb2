import type { ProjectConfig, TableConfig } from "../config/project-config.js";
import type { TableSettings } from "../config/table-settings.js";
import { checkTargetConnection, refuse } from "../connector/capability-check.js";
import type { Connector, ConnectorContext } from "../connector/connector.js";
import type { SourceConnection } from "../connector/source.js";
import { formatTargetTable, targetTableFor } from "../connector/table-ref.js";
import type { TargetConnection } from "../connector/target.js";
import { asSqlloadError, SqlloadError } from "../errors/sqlload-error.js";
import { connectWithRetry } from "./connect-retry.js";
import { mergeTableSettings } from "./merge-settings.js";
import { type Selectable, selectTables } from "./select-tables.js";
import { checkLoggedTable } from "./target-support.js";

/** Reaches a lazily connecting server now, closing the connection again when it cannot be reached. */
async function connected<T extends { connect?(): Promise<void>; close(): Promise<void> }>(connection: T): Promise<T> {
  try {
    await connection.connect?.();
  } catch (error) {
    await connection.close().catch(() => {});
    throw error;
  }
  return connection;
}

export type ConnectorLookup = (name: string) => Connector | undefined;

/** A table of the project, listed in `sqlload.toml` or offered by its source (a TypeScript module). */
export interface ProjectTable extends Selectable {
  readonly config: TableConfig;
}

/**
 * The connections of one command: sources and the target are opened on first use and closed
 * together, so `check` connects to nothing and `plan` only to what it must read.
 */
export class ProjectSession {
  private readonly sources = new Map<string, Promise<SourceConnection>>();
  private target: Promise<TargetConnection> | undefined;
  /** The target's first attempt, begun by `openTargetEarly` and not yet taken by `targetConnection`. */
  private early: Promise<TargetConnection> | undefined;

  constructor(
    readonly config: ProjectConfig,
    private readonly connectors: ConnectorLookup,
  ) {}

  private connector(name: string): Connector {
    const connector = this.connectors(name);
    if (!connector) throw new SqlloadError("SL400", `connector "${name}" is not installed`);
    return connector;
  }

  source(name: string): Promise<SourceConnection> {
    let connection = this.sources.get(name);
    if (!connection) {
      const config = this.config.sources.find((s) => s.name === name);
      if (!config) throw new SqlloadError("SL900", `no source ${name}`);
      const connector = this.connector(config.connector);
      if (!connector.source)
        throw new SqlloadError("SL401", `connector "${config.connector}" of source ${name} cannot read`, {
          location: config.location,
        });
      const open = connector.source;
      connection = connectWithRetry(
        () =>
          open({ options: config.options, projectDir: this.config.dir, sourceName: name })
            .then(connected)
            .catch((error) => {
              throw asSqlloadError(error, "SL304", `cannot open source ${name}`);
            }),
        config.connect,
        `source ${name}`,
      );
      this.sources.set(name, connection);
    }
    return connection;
  }

  targetConnection(): Promise<TargetConnection> {
    if (!this.target) {
      const config = this.config.target;
      let early = this.early;
      this.early = undefined;
      const attempt = this.targetAttempt();
      // An attempt begun during the checks (openTargetEarly) is the first of the retried ones.
      this.target = connectWithRetry(
        () => {
          const pending = early ?? attempt();
          early = undefined;
          return pending;
        },
        config.connect,
        `target ${config.connector}`,
      );
    }
    return this.target;
  }

  /**
   * Begins opening the target now, before the command checks its tables, when the target's
   * connector says opening it changes nothing (`targetOpenIsInert`). One attempt, whose failure
   * waits for `targetConnection` (which retries it as its first attempt); a check that fails
   * closes it unused.
   *
   * Resolves (never rejects) once the connector's `target()` has settled, before the connection's
   * `connect()` has: the checks then begin while the target is being reached. Why not at once: a
   * connector's open runs on this thread until it waits (DuckDB loads its native library, some
   * 20–40 ms), and begun beside the checks it held up the sources' replies instead of overlapping
   * them; what it then waits for (DuckDB's file opening on a thread of its own, 20 ms) is what can
   * overlap the sources' round trips, and the target's first reads with it (readTargetsEarly).
   */
  openTargetEarly(): Promise<void> {
    if (this.target || this.early) return Promise.resolve();
    const config = this.config.target;
    const connector = this.connectors(config.connector);
    if (!connector?.target || !connector.targetOpenIsInert?.(this.targetContext())) return Promise.resolve();
    let opened!: () => void;
    const settled = new Promise<void>((resolve) => {
      opened = resolve;
    });
    this.early = this.targetAttempt()(opened);
    // A failure waits for targetConnection, which reports it.
    this.early.catch(() => {});
    return settled;
  }

  /** The target's connection begun by `openTargetEarly` and not yet taken by `targetConnection`, if any. */
  earlyTarget(): Promise<TargetConnection> | undefined {
    return this.early;
  }

  private targetContext(): ConnectorContext {
    const config = this.config.target;
    return { options: config.options, projectDir: this.config.dir, schema: config.schema };
  }

  /**
   * One attempt at opening the target: the connection, checked against its connector's
   * declaration and reached; `opened` is called once the connector's `target()` has settled.
   */
  private targetAttempt(): (opened?: () => void) => Promise<TargetConnection> {
    const config = this.config.target;
    const connector = this.connector(config.connector);
    if (!connector.target)
      throw new SqlloadError("SL402", `connector "${config.connector}" cannot be a target`, { location: config.location });
    const declared = connector.targetCapabilities?.(config.options);
    const owner = `connector "${config.connector}"`;
    const open = connector.target;
    return (opened) =>
      open(this.targetContext())
        .finally(() => opened?.())
        .then(
          (connection) => {
            if (declared && JSON.stringify(declared) !== JSON.stringify({ ...declared, ...connection.capabilities })) {
              refuse(owner, "target", ["its connection's capabilities differ from those its connector declares"]);
            }
            return connected(checkTargetConnection(connection, owner)).catch((error) => {
              throw asSqlloadError(error, "SL305", `cannot connect to target ${config.connector}`);
            });
          },
          (error) => {
            // The connector says whether a failure is worth retrying (a refused connection is; a bad path is not).
            throw asSqlloadError(error, "SL305", `cannot open target ${config.connector}`);
          },
        );
  }

  /**
   * Refuses, before anything connects, tables the target's declared capabilities rule out: a
   * logged table on a target that commits its run log after the data (SL116). Opens only
   * sources that offer tables in code; a target connector that declares nothing is checked once
   * connected instead.
   */
  async checkTargetSupports(tables: readonly ProjectTable[]): Promise<void> {
    const config = this.config.target;
    const capabilities = this.connectors(config.connector)?.targetCapabilities?.(config.options);
    if (capabilities?.commitModel !== "data-then-log") return;
    for (const table of tables) {
      const source = await this.sourceIfOffering(table.source);
      if (!source) continue;
      const info = await source.describeTable({ table: table.config.ref, options: table.config.options });
      if (info.loggedState) checkLoggedTable(capabilities, formatTargetTable(table.config.target));
    }
  }

  /** The source's connection when its connector offers tables in code (opening it connects to nothing remote). */
  async sourceIfOffering(name: string): Promise<SourceConnection | undefined> {
    const config = this.config.sources.find((s) => s.name === name);
    return config && this.connector(config.connector).offersTables ? this.source(name) : undefined;
  }

  /** Every table: those in `sqlload.toml`, plus those a source offers itself (a TypeScript module's exports). */
  async tables(): Promise<ProjectTable[]> {
    const out: ProjectTable[] = [];
    for (const source of this.config.sources) {
      const listed = new Map(source.tables.map((t) => [t.ref.key, t]));
      const connection = await this.sourceIfOffering(source.name);
      const offered = connection?.listTables ? await connection.listTables() : [];
      for (const ref of offered) {
        if (listed.has(ref.key)) continue;
        const config: TableConfig = {
          source: source.name,
          ref,
          target: targetTableFor(this.config.target.schema, source.name, ref),
          settings: {},
          options: {},
          where: () => source.location,
        };
        listed.set(ref.key, config);
      }
      for (const config of listed.values()) out.push({ source: source.name, name: config.target.name, config });
    }
    return out;
  }

  /**
   * A table's settings, with those it declares in code (a TypeScript table's options) below
   * `sqlload.toml`'s. Opens only sources that offer tables in code; validates what it merges.
   */
  async tableSettings(table: ProjectTable): Promise<TableSettings> {
    const { config } = table;
    const source = await this.sourceIfOffering(table.source);
    if (!source) return config.settings;
    const info = await source.describeTable({ table: config.ref, options: config.options });
    return mergeTableSettings(config.settings, info.settings, config.where, `${table.source}.${config.ref.key}`);
  }

  async select(patterns: readonly string[]): Promise<ProjectTable[]> {
    return selectTables(await this.tables(), patterns);
  }

  async close(): Promise<void> {
    const target = this.target ?? this.early;
    const all = [...this.sources.values(), ...(target ? [target] : [])];
    await Promise.all(all.map((p) => p.then((c) => c.close()).catch(() => {})));
  }
}
