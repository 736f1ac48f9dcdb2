import type { Agent } from "node:https";
import databricks from "@databricks/sql";
import { trustingAgent } from "./databricks-tls.js";

// The driver is CommonJS: its classes come from the default export.
const { DBSQLClient, DBSQLLogger, LogLevel } = databricks;

/**
 * The driver's client, whose requests go through an agent sharing one TLS context when the target
 * names its warehouse's CA (databricks-tls.ts). Every part of the driver that sends a request asks
 * the client for its connection provider (`IClientContext.getConnectionProvider`) and that for its
 * agent (`IConnectionProvider.getAgent`), the Thrift connection made in `connect` included, so the
 * agent is handed out there. It has the driver's own settings for what DatabricksSession asks of
 * it (no proxy, no client certificate, the default socket timeout), with the shared context instead
 * of the certificates. `customCaCert` is still given, so that the driver's own agent would
 * trust the same certificates if it ever stopped asking; test/tls.integration.test.ts checks that
 * requests do go through this agent.
 */
export class Client extends DBSQLClient {
  private agent: Agent | undefined;

  constructor(private readonly caCert: string | undefined) {
    super({ logger: new DBSQLLogger({ level: LogLevel.error }) });
  }

  override async getConnectionProvider(): ReturnType<InstanceType<typeof DBSQLClient>["getConnectionProvider"]> {
    const provider = await super.getConnectionProvider();
    const caCert = this.caCert;
    if (caCert) {
      this.agent ??= trustingAgent(caCert, this.getConfig().socketTimeout);
      const agent = this.agent;
      provider.getAgent = async () => agent;
    }
    return provider;
  }

  override async close(): Promise<void> {
    try {
      await super.close();
    } finally {
      this.agent?.destroy();
      this.agent = undefined;
    }
  }
}
