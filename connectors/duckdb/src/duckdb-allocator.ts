/**
 * What sqlload asks of DuckDB's allocator when opening a target is what loads DuckDB's library:
 * one arena. On Linux the library allocates through the jemalloc built into it, with an arena per
 * core, and memory a thread frees stays in that thread's arena for about a second (DuckDB's
 * `dirty_decay_ms`) before it goes back to the system. A load's threads take turns filling and
 * compressing row groups, so each arena kept what the others freed: 1M rows of 1 KB from Postgres
 * into DuckDB peaked about 40 MB lower at the median with one arena (23–91 MB in seven pairs, on
 * two cores) at the same speed; narrow rows moved by no more than the noise (bench/README.md,
 * 2026-12-07 17:18 UTC on).
 */
export const ALLOCATOR_SETTINGS = "narenas:1";

/**
 * DuckDB's documented `DUCKDB_JE_MALLOC_CONF` with ALLOCATOR_SETTINGS in front of what `given`
 * says; `given` as it is when it sets the arenas itself (`narenas`, or `narenas_ratio`, which an
 * explicit `narenas` would override).
 */
export function allocatorSettings(given: string | undefined): string {
  if (!given) return ALLOCATOR_SETTINGS;
  if (/(^|,)narenas(_ratio)?:/.test(given)) return given;
  return `${ALLOCATOR_SETTINGS},${given}`;
}

/**
 * Runs `load` (which loads DuckDB's library) with `allocatorSettings` in the environment, then
 * puts the environment back as it was: jemalloc reads the variable once, when the library is
 * loaded, and child processes and code that reads the environment later see the user's own.
 * When the library is loaded already, `load` loads nothing and the setting changes nothing.
 */
export function withAllocatorSettings<T>(load: () => T, env: NodeJS.ProcessEnv = process.env): T {
  const given = env.DUCKDB_JE_MALLOC_CONF;
  env.DUCKDB_JE_MALLOC_CONF = allocatorSettings(given);
  try {
    return load();
  } finally {
    if (given === undefined) delete env.DUCKDB_JE_MALLOC_CONF;
    else env.DUCKDB_JE_MALLOC_CONF = given;
  }
}
