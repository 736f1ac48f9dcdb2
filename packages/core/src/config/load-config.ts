import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { parseEnv } from "node:util";
import { parse, TomlError } from "smol-toml";
import type { ConfigKeySpec, ConnectorConfigSchema } from "../connector/connector.js";
import { parseTableKey, targetTableFor } from "../connector/table-ref.js";
import { type ErrorLocation, SqlloadError } from "../errors/sqlload-error.js";
import { type ConnectPolicy, DEFAULT_CONNECT_POLICY } from "../run/connect-retry.js";
import { parseDuration } from "./duration.js";
import { interpolate } from "./interpolate.js";
import { formatKeyPath, KeyLocator } from "./locate.js";
import type { ProjectConfig, SourceConfig, TableConfig, TargetConfig } from "./project-config.js";
import { parseRateLimit } from "./rate-limit.js";
import { connectionSettingSpecs } from "./schema.js";
import { didYouMean } from "./suggest.js";
import { checkConnectorKey, validateTableSettings } from "./table-settings.js";

export const PROJECT_FILE = "sqlload.toml";

/**
 * Parses a project file. Integers beyond 2^53 come back as bigints (a plain parse throws on them),
 * so every reader of the file sees the same document and an integer cursor stays exact.
 */
function parseProjectToml(text: string): Record<string, unknown> {
  return parse(text, { integersAsBigInt: "asNeeded" }) as Record<string, unknown>;
}

/** The `sqlload.toml` in `start` or the nearest parent folder; SL100 when there is none. */
export function findProjectFile(start: string, explicit = false): string {
  let dir = resolve(start);
  for (;;) {
    const file = join(dir, PROJECT_FILE);
    if (existsSync(file)) return file;
    const parent = dirname(dir);
    if (explicit || parent === dir) {
      throw new SqlloadError("SL100", `no ${PROJECT_FILE} in ${resolve(start)}${explicit ? "" : " or any folder above it"}`);
    }
    dir = parent;
  }
}

export interface LoadConfigOptions {
  /** Environment for `${VAR}`; default `process.env`. Values in `.env` beside the file fill gaps. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** The config schema of an installed connector, or undefined when no such connector is installed. */
  readonly connectorSchema: (name: string) => ConnectorConfigSchema | undefined;
  /** A hint for SL400 naming how to install a missing connector. */
  readonly installHint?: (name: string) => string;
}

const TOP_KEYS = ["target", "sources"];
const CONNECT_KEYS = connectionSettingSpecs.map((s) => s.key);

/** `connect_retries` and `connect_timeout` of a source or the target, over the defaults. */
function readConnectPolicy(block: Record<string, unknown>, where: (key: string) => ErrorLocation): ConnectPolicy {
  const retries = block.connect_retries;
  const timeout = block.connect_timeout;
  let policy = DEFAULT_CONNECT_POLICY;
  if (retries !== undefined) {
    if (typeof retries !== "number" || !Number.isInteger(retries) || retries < 0 || retries > 100) {
      throw new SqlloadError(
        "SL103",
        `\`connect_retries\` must be a whole number from 0 to 100, not ${JSON.stringify(String(retries))}`,
        {
          location: where("connect_retries"),
        },
      );
    }
    policy = { ...policy, retries };
  }
  if (timeout !== undefined) {
    const duration = typeof timeout === "string" ? parseDuration(timeout) : undefined;
    if (!duration) {
      throw new SqlloadError(
        "SL104",
        `\`connect_timeout\` = ${JSON.stringify(String(timeout))} is not a duration such as "10s"`,
        {
          location: where("connect_timeout"),
        },
      );
    }
    policy = { ...policy, timeoutMs: Number(duration.micros / 1000n) };
  }
  return policy;
}

/**
 * Reads and validates a project: TOML syntax, `${VAR}` interpolation, every key and value, and
 * combinations of table settings. Nothing connects. Errors name file, line, key, and a fix.
 */
export function loadConfig(file: string, options: LoadConfigOptions): ProjectConfig {
  const path = resolve(file);
  const dir = dirname(path);
  const shownFile = relative(process.cwd(), path) || path;
  const text = readFileSync(path, "utf8");
  const envFile = join(dir, ".env");
  const env = { ...(existsSync(envFile) ? parseEnv(readFileSync(envFile, "utf8")) : {}), ...(options.env ?? process.env) };

  let raw: Record<string, unknown>;
  try {
    raw = parseProjectToml(text);
  } catch (error) {
    if (error instanceof TomlError) {
      const firstLine = error.message.split("\n")[0] ?? error.message;
      throw new SqlloadError("SL101", firstLine.replace(/^Invalid TOML document: /, "invalid TOML: "), {
        location: { file: shownFile, line: error.line },
        cause: error,
      });
    }
    throw error;
  }

  const locator = new KeyLocator(text);
  const where = (path: readonly string[]): ErrorLocation => ({
    file: shownFile,
    line: locator.line(path),
    key: formatKeyPath(path),
  });
  const secrets: string[] = [];
  const expand = (value: unknown, path: readonly string[]): unknown => {
    if (typeof value === "string") return interpolate(value, env, () => where(path));
    if (Array.isArray(value)) return value.map((v, i) => expand(v, [...path, String(i)]));
    if (value && typeof value === "object" && Object.getPrototypeOf(value) === null) {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, expand(v, [...path, k])]));
    }
    return value;
  };
  raw = expand(raw, []) as Record<string, unknown>;

  for (const key of Object.keys(raw)) {
    if (!TOP_KEYS.includes(key)) {
      throw new SqlloadError("SL102", `unknown top-level key \`${key}\``, {
        location: where([key]),
        hint: didYouMean(key, TOP_KEYS),
      });
    }
  }

  const schemaOf = (connector: string, path: readonly string[]): ConnectorConfigSchema => {
    const schema = options.connectorSchema(connector);
    if (!schema) {
      throw new SqlloadError("SL400", `connector "${connector}" is not installed`, {
        location: where([...path, "connector"]),
        hint: options.installHint?.(connector) ?? `Install it: npm i -D @sqlload/connector-${connector}`,
      });
    }
    return schema;
  };

  const readBlock = (
    block: Record<string, unknown>,
    specs: readonly ConfigKeySpec[],
    path: readonly string[],
    reserved: readonly string[],
  ) => {
    const known = new Map(specs.map((s) => [s.key, s]));
    const values: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(block)) {
      if (reserved.includes(key)) continue;
      const spec = known.get(key);
      if (!spec) {
        throw new SqlloadError("SL102", `unknown key \`${key}\` in [${formatKeyPath(path)}]`, {
          location: where([...path, key]),
          hint: didYouMean(key, [...reserved, ...known.keys()]),
        });
      }
      values[key] = checkConnectorKey(spec, value, key, where([...path, key]));
      if (spec.secret && typeof value === "string") secrets.push(value);
    }
    for (const spec of specs) {
      if (spec.required && values[spec.key] === undefined) {
        throw new SqlloadError("SL105", `[${formatKeyPath(path)}] needs \`${spec.key}\` (${spec.description})`, {
          location: where(path),
        });
      }
    }
    return values;
  };

  const asTable = (value: unknown, path: readonly string[]): Record<string, unknown> => {
    if (!value || typeof value !== "object" || Array.isArray(value)) {
      throw new SqlloadError("SL103", `\`${formatKeyPath(path)}\` must be a table`, { location: where(path) });
    }
    return value as Record<string, unknown>;
  };

  const targetBlock = asTable(raw.target ?? Object.create(null), ["target"]);
  const targetConnector = targetBlock.connector ?? "duckdb";
  if (typeof targetConnector !== "string")
    throw new SqlloadError("SL103", "`target.connector` must be a string", { location: where(["target", "connector"]) });
  const schema = targetBlock.schema ?? "raw";
  if (typeof schema !== "string" || schema === "")
    throw new SqlloadError("SL103", "`target.schema` must be a non-empty string", { location: where(["target", "schema"]) });
  const targetSpecs = schemaOf(targetConnector, ["target"]);
  const target: TargetConfig = {
    connector: targetConnector,
    schema,
    options: readBlock(targetBlock, targetSpecs.target ?? [], ["target"], ["connector", "schema", ...CONNECT_KEYS]),
    connect: readConnectPolicy(targetBlock, (key) => where(["target", key])),
    location: where(["target"]),
  };

  const sources: SourceConfig[] = [];
  for (const [name, value] of Object.entries(asTable(raw.sources ?? Object.create(null), ["sources"]))) {
    const path = ["sources", name];
    if (!/^[a-z_][a-z0-9_]*$/.test(name)) {
      throw new SqlloadError("SL110", `source name \`${name}\` must be lower case letters, digits and _`, {
        location: where(path),
        hint: "Target tables are named `<source>__<table>`, so the source name must be a plain identifier.",
      });
    }
    const block = asTable(value, path);
    const connector = block.connector;
    if (typeof connector !== "string") {
      throw new SqlloadError("SL105", `[sources.${name}] needs \`connector\` (e.g. "postgres", "typescript")`, {
        location: where(path),
      });
    }
    const specs = schemaOf(connector, path);
    const sourceOptions = readBlock(block, specs.source ?? [], path, ["connector", "tables", "rate_limit", ...CONNECT_KEYS]);
    const rateLimit =
      block.rate_limit === undefined
        ? undefined
        : parseRateLimit(block.rate_limit, "rate_limit", where([...path, "rate_limit"]), "snake");
    const connect = readConnectPolicy(block, (key) => where([...path, key]));
    const tables: TableConfig[] = [];
    for (const [key, settingsValue] of Object.entries(asTable(block.tables ?? Object.create(null), [...path, "tables"]))) {
      const tablePath = [...path, "tables", key];
      let ref: ReturnType<typeof parseTableKey>;
      try {
        ref = parseTableKey(key);
      } catch (error) {
        throw new SqlloadError("SL110", (error as Error).message, { location: where(tablePath) });
      }
      const tableWhere = (k: string) => where([...tablePath, k]);
      const validated = validateTableSettings(asTable(settingsValue, tablePath), {
        naming: "snake",
        connectorKeys: specs.table ?? [],
        where: tableWhere,
        table: `${name}.${key}`,
      });
      tables.push({ source: name, ref, target: targetTableFor(schema, name, ref), ...validated, where: tableWhere });
    }
    sources.push({ name, connector, options: sourceOptions, rateLimit, tables, connect, location: where(path) });
  }

  return { file: path, dir, target, sources, secrets };
}

/**
 * The connectors a project file names (its target's, default `duckdb`, and its sources'), read
 * without validating anything: so the CLI loads only those. A file that does not parse names
 * none; `loadConfig` then reports why.
 */
export function connectorNames(file: string): Set<string> {
  const names = new Set<string>();
  try {
    const raw = parseProjectToml(readFileSync(file, "utf8"));
    const target = raw.target as Record<string, unknown> | undefined;
    names.add(typeof target?.connector === "string" ? target.connector : "duckdb");
    for (const source of Object.values((raw.sources ?? {}) as Record<string, unknown>)) {
      const connector = (source as Record<string, unknown> | undefined)?.connector;
      if (typeof connector === "string") names.add(connector);
    }
  } catch {
    // loadConfig reports the syntax error with its line.
  }
  return names;
}
