import { SnowflakeEmulator } from "@sqlload/testing/emulator";
import { SnowflakeSession, type SnowflakeSettings } from "../src/snowflake-session.js";
import { parseSnowflakeSettings } from "../src/snowflake-settings.js";

/**
 * Where the Snowflake tests run: the emulator always (snowflake-sdk over HTTP to a local server on
 * DuckDB), and a real account as well when SQLLOAD_SNOWFLAKE_ACCOUNT and credentials are set.
 */
export interface Engine {
  readonly name: string;
  readonly settings: SnowflakeSettings;
  /** The `[target]` options a project would give. */
  readonly options: Readonly<Record<string, unknown>>;
  readonly emulator?: SnowflakeEmulator;
  stop(): Promise<void>;
}

/** The emulator, with `[target]` options added to the defaults (`bulk_load_rows = 0` sends every unit through PUT + COPY). */
export async function emulatorEngine(extra: Readonly<Record<string, unknown>> = {}): Promise<Engine> {
  const emulator = await SnowflakeEmulator.start({ user: "SQLLOAD", password: "secret" });
  const options = {
    account: "emulator",
    user: "sqlload",
    password: "secret",
    database: "SQLLOAD",
    access_url: emulator.url,
    ...extra,
  };
  return {
    name: "emulator",
    settings: parseSnowflakeSettings(options, process.cwd()),
    options,
    emulator,
    stop: () => emulator.close(),
  };
}

/** The real account from the environment, or the reason it is not used. */
export function realEngine(): Engine | string {
  const env = process.env;
  if (!env.SQLLOAD_SNOWFLAKE_ACCOUNT) return "SQLLOAD_SNOWFLAKE_ACCOUNT is not set";
  const options: Record<string, unknown> = {
    account: env.SQLLOAD_SNOWFLAKE_ACCOUNT,
    user: env.SQLLOAD_SNOWFLAKE_USER,
    database: env.SQLLOAD_SNOWFLAKE_DATABASE,
    role: env.SQLLOAD_SNOWFLAKE_ROLE,
    warehouse: env.SQLLOAD_SNOWFLAKE_WAREHOUSE,
    password: env.SQLLOAD_SNOWFLAKE_PASSWORD,
    private_key_path: env.SQLLOAD_SNOWFLAKE_PRIVATE_KEY_PATH,
    private_key_passphrase: env.SQLLOAD_SNOWFLAKE_PRIVATE_KEY_PASSPHRASE,
    token: env.SQLLOAD_SNOWFLAKE_TOKEN,
    bulk_load_rows: env.SQLLOAD_SNOWFLAKE_BULK_LOAD_ROWS === undefined ? undefined : Number(env.SQLLOAD_SNOWFLAKE_BULK_LOAD_ROWS),
  };
  for (const key of Object.keys(options)) if (options[key] === undefined) delete options[key];
  try {
    return { name: "real account", settings: parseSnowflakeSettings(options, process.cwd()), options, stop: async () => {} };
  } catch (error) {
    return `SQLLOAD_SNOWFLAKE_ACCOUNT is set but the credentials are incomplete: ${(error as Error).message}`;
  }
}

export function openSession(engine: Engine): Promise<SnowflakeSession> {
  return SnowflakeSession.open(engine.settings);
}

let schemas = 0;

/** A schema name no other test of this process uses. */
export function freshSchema(): string {
  return `sqlload_test_${process.pid}_${++schemas}`;
}

/** The `_sqlload_stage_*` tables left in a schema of the emulator's database. */
export async function stageTablesLeft(emulator: SnowflakeEmulator, schema: string): Promise<unknown[]> {
  const result = await emulator.database.query(
    "SELECT table_name FROM duckdb_tables() WHERE schema_name = ? AND starts_with(table_name, '_sqlload_stage_')",
    [schema],
  );
  return result.rows.map((r) => r[0]);
}
