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
  /** Where the bulk path stages files: a `/Volumes/<catalog>/<schema>/<volume>[/<folder>]` path. */
  readonly volume?: string | undefined;
  /** Units of at least this many rows go through the volume (Parquet + COPY INTO); smaller ones through INSERT. */
  readonly bulkThreshold: number;
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

/** Below this many rows a unit is sent as parameterized INSERTs even when a volume is set. */
export const DEFAULT_BULK_THRESHOLD = 5000;

/**
 * `volume` as a path: `catalog.schema.volume` names a volume's root, `/Volumes/catalog/schema/volume/folder`
 * a folder in it. Parts are limited to letters, digits, `_` and `-`, because the path goes into
 * SQL string literals (`PUT … INTO '…'`, `COPY INTO … FROM '…'`) and Unity Catalog names allow no more.
 */
export function volumePath(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const parts = value.startsWith("/Volumes/") ? value.slice("/Volumes/".length).replace(/\/+$/, "").split("/") : value.split(".");
  if (
    parts.length < 3 ||
    (!value.startsWith("/Volumes/") && parts.length !== 3) ||
    parts.some((p) => !/^[A-Za-z0-9_-]+$/.test(p))
  ) {
    throw new SqlloadError(
      "SL103",
      `the Databricks target's \`volume\` must be \`catalog.schema.volume\` or a /Volumes/… path, not "${value}"`,
      {
        hint: 'E.g. `volume = "main.raw.sqlload_staging"` (letters, digits, `_` and `-` only).',
      },
    );
  }
  return `/Volumes/${parts.join("/")}`;
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
  const bulkThreshold = options.bulk_threshold ?? DEFAULT_BULK_THRESHOLD;
  if (!(typeof bulkThreshold === "number" && Number.isInteger(bulkThreshold) && bulkThreshold >= 0)) {
    throw new SqlloadError("SL103", "the Databricks target's `bulk_threshold` must be a whole number of rows (0 or more)");
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
    volume: volumePath(text(options, "volume")),
    bulkThreshold,
    transactions,
    caCert: caCertPath ? readFileSync(resolve(projectDir, caCertPath), "utf8") : undefined,
  };
}
