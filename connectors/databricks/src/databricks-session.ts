import { Client } from "./databricks-client.js";
import type { DatabricksSettings } from "./databricks-settings.js";
import { databricksError, scrubber } from "./errors.js";

type Session = Awaited<ReturnType<Client["openSession"]>>;

export type Row = Readonly<Record<string, string | null>>;
export type Params = Readonly<Record<string, string | null>>;

/**
 * One warehouse session on `@databricks/sql` (Thrift over HTTPS). Every statement is sent with
 * named STRING parameters, and every value a caller reads back is selected `CAST(… AS STRING)`,
 * because the driver turns BIGINT and DECIMAL into JS numbers and timestamps into millisecond
 * Dates. The session's time zone is UTC, so timestamps convert the same on every machine.
 */
export class DatabricksSession {
  private constructor(
    private readonly client: Client,
    private readonly session: Session,
    readonly scrub: (text: string) => string,
  ) {}

  static async open(settings: DatabricksSettings): Promise<DatabricksSession> {
    const scrub = scrubber(settings.auth.kind === "token" ? [settings.auth.token] : [settings.auth.clientSecret]);
    const client = new Client(settings.caCert);
    try {
      await client.connect({
        host: settings.host,
        ...(settings.port ? { port: settings.port } : {}),
        path: settings.httpPath,
        telemetryEnabled: false,
        userAgentEntry: "sqlload",
        ...(settings.caCert ? { customCaCert: settings.caCert } : {}),
        ...(settings.auth.kind === "token"
          ? { token: settings.auth.token }
          : {
              authType: "databricks-oauth" as const,
              oauthClientId: settings.auth.clientId,
              oauthClientSecret: settings.auth.clientSecret,
            }),
      });
      const session = await client.openSession({
        initialCatalog: settings.catalog,
        configuration: { TIMEZONE: "UTC" },
      });
      return new DatabricksSession(client, session, scrub);
    } catch (error) {
      await client.close().catch(() => undefined);
      throw databricksError(error, `connecting to the Databricks warehouse ${settings.host}`, { scrub });
    }
  }

  /** Runs a statement and returns its rows; every column the caller reads is selected as STRING. */
  async query(sql: string, params: Params = {}): Promise<Row[]> {
    const operation = await this.session.executeStatement(sql, { namedParameters: { ...params } });
    try {
      return (await operation.fetchAll()) as Row[];
    } finally {
      await operation.close().catch(() => undefined);
    }
  }

  async execute(sql: string, params: Params = {}): Promise<void> {
    await this.query(sql, params);
  }

  /**
   * Runs a staging operation (`PUT`, `REMOVE`): the warehouse answers with a presigned URL and the
   * driver moves the file itself, reading local files only under `localDir`.
   */
  async staging(sql: string, localDir: string): Promise<void> {
    const operation = await this.session.executeStatement(sql, { stagingAllowedLocalPath: [localDir] });
    await operation.close().catch(() => undefined);
  }

  async close(): Promise<void> {
    await this.session.close().catch(() => undefined);
    await this.client.close().catch(() => undefined);
  }
}
