import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { SqlloadError } from "@sqlload/core";

/** How each commit unit lands (see docs/connectors/databricks.md). */
export type TransactionsSetting = "auto" | "atomic" | "none";

export interface DatabricksSettings {
  readonly host: string;
  readonly port?: number | undefined;
  readonly httpPath: string;
  readonly auth:
    | { readonly kind: "token"; readonly token: string }
    | { readonly kind: "oauth-m2m"; readonly clientId: string; readonly clientSecret: string };
  readonly catalog: string;
  readonly volume?: string | undefined;
  readonly transactions: TransactionsSetting;
  /** Extra CA certificate (PEM) to trust: a TLS-inspecting proxy, or a local test warehouse. */
  readonly caCert?: string | undefined;
}

function text(options: Readonly<Record<string, unknown>>, key: string): string | undefined {
  const value = options[key];
  if (value === undefined || value === "") return undefined;
  if (typeof value !== "string") throw new SqlloadError("SL103", `the Databricks target's \`${key}\` must be a string`);
  return value;
}

function required(options: Readonly<Record<string, unknown>>, key: string, example: string): string {
  const value = text(options, key);
  if (!value) throw new SqlloadError("SL105", `the Databricks target needs \`${key}\``, { hint: `Add \`${key} = ${example}\`.` });
  return value;
}

/** The `[target]` block's keys, checked: every problem is a coded error before anything connects. */
export function parseSettings(options: Readonly<Record<string, unknown>>, projectDir: string): DatabricksSettings {
  const host = required(options, "host", '"adb-1234567890123456.7.azuredatabricks.net"').replace(/^https?:\/\//, "");
  const httpPath = required(options, "http_path", '"/sql/1.0/warehouses/abcdef1234567890"');
  const catalog = required(options, "catalog", '"main"');
  const token = text(options, "token");
  const clientId = text(options, "client_id");
  const clientSecret = text(options, "client_secret");
  if (token && (clientId || clientSecret)) {
    throw new SqlloadError("SL112", "the Databricks target takes `token` or `client_id`/`client_secret`, not both");
  }
  if (!token && !(clientId && clientSecret)) {
    throw new SqlloadError("SL105", "the Databricks target needs `token`, or `client_id` and `client_secret` (OAuth M2M)", {
      hint: 'Add `token = "${DATABRICKS_TOKEN}"` (a personal access token), or a service principal\'s `client_id` and `client_secret`.',
    });
  }
  const transactions = (text(options, "transactions") ?? "auto") as TransactionsSetting;
  if (!["auto", "atomic", "none"].includes(transactions)) {
    throw new SqlloadError(
      "SL107",
      `the Databricks target's \`transactions\` must be "auto", "atomic" or "none", not "${transactions}"`,
    );
  }
  const port = options.port;
  if (port !== undefined && !(typeof port === "number" && Number.isInteger(port) && port > 0)) {
    throw new SqlloadError("SL103", "the Databricks target's `port` must be a port number");
  }
  const caCertPath = text(options, "ca_cert");
  return {
    host,
    port: port as number | undefined,
    httpPath,
    auth: token
      ? { kind: "token", token }
      : { kind: "oauth-m2m", clientId: clientId as string, clientSecret: clientSecret as string },
    catalog,
    volume: text(options, "volume"),
    transactions,
    caCert: caCertPath ? readFileSync(resolve(projectDir, caCertPath), "utf8") : undefined,
  };
}
