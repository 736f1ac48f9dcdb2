import { createRequire } from "node:module";
import { type ConfigKeySpec, defineConnector } from "@sqlload/core";
import { SSL_MODES } from "./postgres-connection.js";
import { createPostgresSource } from "./postgres-source.js";
import { createPostgresTarget, PostgresTarget } from "./postgres-target.js";

const { version } = createRequire(import.meta.url)("../package.json") as { version: string };

/** The same keys for a source and the target; the `PG*` environment variables fill what is not given. */
const connectionKeys: readonly ConfigKeySpec[] = [
  {
    key: "url",
    type: "string",
    secret: true,
    description:
      "Connection URL, postgresql://user:password@host:5432/database?sslmode=require (printed with its password redacted).",
  },
  { key: "host", type: "string", description: "Host name, or a folder holding the server's Unix socket; overrides the URL's." },
  { key: "port", type: "integer", description: "Port; overrides the URL's. Default 5432 (or PGPORT)." },
  { key: "database", type: "string", description: "Database name; overrides the URL's." },
  { key: "user", type: "string", description: "User name; overrides the URL's." },
  { key: "password", type: "string", secret: true, description: "Password; overrides the URL's. Prefer `${VAR}` or PGPASSWORD." },
  {
    key: "sslmode",
    type: "string",
    values: SSL_MODES,
    description: "TLS as libpq means it: disable, allow, prefer (default), require, verify-ca, verify-full.",
  },
];

export default defineConnector({
  manifest: {
    name: "postgres",
    version,
    description: "Postgres: snapshot reads by binary COPY, transactional loads by binary COPY.",
  },
  configSchema: { source: connectionKeys, target: connectionKeys, table: [] },
  source: createPostgresSource,
  target: createPostgresTarget,
  targetCapabilities: PostgresTarget.capabilities,
  // No `targetOpenIsInert`: opening creates nothing, but a server that does not answer would hold
  // a run whose checks already failed until the connection gave up.
});

export { errorKind, toSqlloadError } from "./errors.js";
export { connectionConfig, type PostgresOptions, redactSecrets, redactUrl } from "./postgres-connection.js";
export { PostgresSource } from "./postgres-source.js";
export { PostgresTarget } from "./postgres-target.js";
