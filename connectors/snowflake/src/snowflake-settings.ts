import { isAbsolute, resolve } from "node:path";
import { type ConfigKeySpec, SqlloadError } from "@sqlload/core";
import type { SnowflakeAuth, SnowflakeSettings } from "./snowflake-session.js";

/**
 * Where a unit switches from INSERTs with array binds to PUT + COPY. Below it, one or two INSERTs
 * (60,000 bound values each: 10,000 rows of six columns) cost fewer round trips than a PUT, an
 * upload to cloud storage and a COPY; above it, gzip CSV is several times fewer bytes than JSON
 * binds, and COPY loads files in parallel on the warehouse.
 */
export const DEFAULT_BULK_LOAD_ROWS = 10_000;

/** The `[target]` keys of the Snowflake connector. */
export const snowflakeTargetSettings: readonly ConfigKeySpec[] = [
  { key: "account", type: "string", description: "The account identifier, e.g. `myorg-myaccount`." },
  { key: "user", type: "string", description: "The user sqlload signs in as." },
  { key: "database", type: "string", description: "The database; tables land in its schema named by the target's `schema`." },
  { key: "role", type: "string", description: "The role to use (default: the user's default role)." },
  { key: "warehouse", type: "string", description: "The virtual warehouse that runs the loads (default: the user's default)." },
  { key: "password", type: "string", secret: true, description: "Password authentication." },
  {
    key: "private_key_path",
    type: "string",
    description: "Key-pair authentication: a PEM private key file, relative to the project.",
  },
  {
    key: "private_key_passphrase",
    type: "string",
    secret: true,
    description: 'The private key\'s passphrase; give it from the environment: `"${SNOWFLAKE_PRIVATE_KEY_PASSPHRASE}"`.',
  },
  { key: "token", type: "string", secret: true, description: "OAuth authentication: an access token." },
  {
    key: "bulk_load_rows",
    type: "integer",
    description: `A commit of at least this many rows is loaded by PUT of gzip CSV files and COPY INTO; smaller ones by INSERTs with array binds (default ${DEFAULT_BULK_LOAD_ROWS}; 0: always PUT + COPY).`,
  },
  {
    key: "access_url",
    type: "string",
    description: "Connect here instead of https://<account>.snowflakecomputing.com (private link, a test emulator).",
  },
];

function optionalString(options: Readonly<Record<string, unknown>>, key: string): string | undefined {
  const value = options[key];
  if (value === undefined || value === "") return undefined;
  if (typeof value !== "string") throw new SqlloadError("SL103", `the Snowflake target's \`${key}\` must be a string`);
  return value;
}

function required(options: Readonly<Record<string, unknown>>, key: string): string {
  const value = optionalString(options, key);
  if (!value)
    throw new SqlloadError("SL105", `the Snowflake target needs \`${key}\``, { hint: `Add \`${key} = "…"\` to [target].` });
  return value;
}

/** Reads and checks the `[target]` settings; exactly one way to sign in. */
export function parseSnowflakeSettings(options: Readonly<Record<string, unknown>>, projectDir: string): SnowflakeSettings {
  const password = optionalString(options, "password");
  const keyPath = optionalString(options, "private_key_path");
  const token = optionalString(options, "token");
  const given = [password && "password", keyPath && "private_key_path", token && "token"].filter(Boolean);
  if (given.length !== 1) {
    throw new SqlloadError(
      given.length === 0 ? "SL105" : "SL112",
      given.length === 0
        ? "the Snowflake target needs one way to sign in: `private_key_path`, `password` or `token`"
        : `the Snowflake target takes one way to sign in, not ${given.join(" and ")}`,
      {
        hint: 'Key pair is recommended: `private_key_path = "keys/sqlload.p8"` and `private_key_passphrase = "${SNOWFLAKE_PRIVATE_KEY_PASSPHRASE}"`.',
      },
    );
  }
  if (optionalString(options, "private_key_passphrase") && !keyPath) {
    throw new SqlloadError("SL112", "the Snowflake target's `private_key_passphrase` needs `private_key_path`");
  }
  const auth: SnowflakeAuth = password
    ? { kind: "password", password }
    : keyPath
      ? {
          kind: "key_pair",
          privateKeyPath: isAbsolute(keyPath) ? keyPath : resolve(projectDir, keyPath),
          passphrase: optionalString(options, "private_key_passphrase"),
        }
      : { kind: "oauth", token: token as string };
  const bulk = typeof options.bulk_load_rows === "bigint" ? Number(options.bulk_load_rows) : options.bulk_load_rows;
  if (bulk !== undefined && (typeof bulk !== "number" || !Number.isInteger(bulk) || bulk < 0)) {
    throw new SqlloadError("SL103", "the Snowflake target's `bulk_load_rows` must be a whole number, 0 or more", {
      hint: `For example \`bulk_load_rows = ${DEFAULT_BULK_LOAD_ROWS}\`; 0 bulk-loads every commit.`,
    });
  }
  return {
    account: required(options, "account"),
    user: required(options, "user"),
    database: required(options, "database"),
    role: optionalString(options, "role"),
    warehouse: optionalString(options, "warehouse"),
    accessUrl: optionalString(options, "access_url"),
    bulkLoadRows: bulk ?? DEFAULT_BULK_LOAD_ROWS,
    auth,
  };
}
