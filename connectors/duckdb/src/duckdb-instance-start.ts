import { resolve } from "node:path";
import type duckdb from "@duckdb/node-bindings";
import type { ConnectorContext } from "@sqlload/core";
import { attachedInstanceOptions, recoversLog, targetFileOptions, targetFileSettings } from "./duckdb-instance-options.js";
import { IN_MEMORY, targetPath } from "./duckdb-target-path.js";

// Nothing here loads the DuckDB client's JavaScript: only its native layer, which the caller has loaded.

type Bindings = typeof duckdb;

/**
 * An in-memory DuckDB instance being created on one of libuv's threads, and the options it was
 * begun with. Creating one takes 30–50 ms of that thread (DuckDB fills its catalog of functions);
 * the attach of a target's file (duckdb-database.ts) begins one this way, or takes one the
 * connector's entry began as soon as DuckDB's library was loaded, which then overlaps loading the
 * client's JavaScript (`startTargetInstance`).
 */
export interface InstanceStart {
  readonly options: Readonly<Record<string, string>>;
  readonly database: Promise<duckdb.Database>;
}

/** Begins creating an in-memory instance with `options`, configured as the client's `DuckDBInstance.create` does. */
export function startInstance(bindings: Bindings, options: Readonly<Record<string, string>>): InstanceStart {
  const config = bindings.create_config();
  // The client's own name for itself (DuckDB reports it in `PRAGMA user_agent`), as its `createConfig` sets it.
  bindings.set_config(config, "duckdb_api", "node-neo-api");
  for (const [name, value] of Object.entries(options)) bindings.set_config(config, name, value);
  const database = bindings.open(IN_MEMORY, config);
  // Its failure is reported by whoever takes it; one nobody takes is only closed.
  database.catch(() => {});
  return { options, database };
}

/** Closes an instance that was begun and not taken, once it exists. */
export function discardInstance(bindings: Bindings, start: InstanceStart): void {
  start.database.then(
    (database) => bindings.close_sync(database),
    () => {},
  );
}

/** Whether a begun instance was begun with exactly `options`. */
export function begunWith(start: InstanceStart, options: Readonly<Record<string, string>>): boolean {
  const given = Object.entries(start.options);
  return given.length === Object.keys(options).length && given.every(([name, value]) => options[name] === value);
}

/**
 * Begins the in-memory instance the target's file will be attached to, with the options the
 * attach computes for it (the attach takes it only if they are the same), or nothing: an
 * in-memory target is not attached, and settings the target refuses are reported by the open
 * itself. The temporary folder's leftovers are listed later, before the attach: creating the
 * instance puts nothing there.
 */
export function startTargetInstance(bindings: Bindings, context: ConnectorContext): InstanceStart | undefined {
  try {
    const path = targetPath(context.options);
    if (path === IN_MEMORY) return undefined;
    const file = resolve(context.projectDir, path);
    const settings = targetFileSettings(context.options);
    const options = attachedInstanceOptions(targetFileOptions(settings), file, recoversLog(file, settings.raisable));
    return startInstance(bindings, options);
  } catch {
    return undefined;
  }
}
