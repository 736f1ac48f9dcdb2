import { createRequire } from "node:module";
import { defineConnector, SqlloadError } from "@sqlload/core";
import { type ClickHouseSession, openChdb, openServer } from "./clickhouse-session.js";
import { ClickHouseTarget } from "./clickhouse-target.js";

const { version } = createRequire(import.meta.url)("../package.json") as { version: string };

function optionalString(options: Readonly<Record<string, unknown>>, key: string): string | undefined {
  const value = options[key];
  if (value === undefined) return undefined;
  if (typeof value !== "string") throw new SqlloadError("SL103", `the ClickHouse target's \`${key}\` must be a string`);
  return value;
}

export default defineConnector({
  manifest: {
    name: "clickhouse",
    version,
    description: "ClickHouse: a target with staged commits, published together (in process with chdb, or a server).",
  },
  configSchema: {
    target: [
      {
        key: "url",
        type: "string",
        secret: true,
        description: "The server's HTTP address, e.g. http://localhost:8123 (user:password@ may go before the host).",
      },
      {
        key: "database",
        type: "string",
        description:
          "The database the connection starts in (default: the user's default). Tables land in the database named by the target's `schema`.",
      },
      { key: "username", type: "string", description: "The user (default: the one in `url`, else `default`)." },
      { key: "password", type: "string", secret: true, description: "The user's password." },
      {
        key: "chdb_path",
        type: "string",
        description:
          "Run ClickHouse in process with chdb (the `chdb` package) on this folder, relative to the project, instead of connecting to a server. For tests and local use.",
      },
    ],
    table: [],
  },
  targetCapabilities: ClickHouseTarget.capabilities,
  async target(context) {
    const options = context.options;
    const url = optionalString(options, "url");
    const chdbPath = optionalString(options, "chdb_path");
    if (url && chdbPath) {
      throw new SqlloadError(
        "SL112",
        "the ClickHouse target takes either `url` (a server) or `chdb_path` (in process), not both",
      );
    }
    if (!url && !chdbPath) {
      throw new SqlloadError("SL105", "the ClickHouse target needs `url` (a server) or `chdb_path` (ClickHouse in process)", {
        hint: 'Add `url = "http://localhost:8123"`, or `chdb_path = "warehouse.chdb"` to run ClickHouse inside sqlload with the chdb package.',
      });
    }
    const session: ClickHouseSession = url
      ? await openServer({
          url,
          username: optionalString(options, "username"),
          password: optionalString(options, "password"),
          database: optionalString(options, "database"),
        })
      : await openChdb(chdbPath as string, context.projectDir);
    return new ClickHouseTarget(session);
  },
});

export { quoteIdent } from "./clickhouse-dialect.js";
export { openChdb, openServer } from "./clickhouse-session.js";
export { ClickHouseTarget, type ClickHouseTargetOptions } from "./clickhouse-target.js";
export { clickhouseTypeSql, logicalTypeOf } from "./clickhouse-types.js";
