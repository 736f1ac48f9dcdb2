/**
 * What sqlload asks of DuckDB's allocator when it writes a target: one arena. On Linux DuckDB's
 * library allocates through the jemalloc built into it, with an arena per core, and memory a thread
 * frees stays in that thread's arena for about a second (DuckDB's `dirty_decay_ms`) before it goes
 * back to the system. A load's threads take turns filling and compressing row groups, so each arena
 * kept what the others freed: 1M rows of 1 KB from Postgres into DuckDB peaked at 552–631 MB with an
 * arena per core (two here) and at 529–548 MB with one, at the same speed; narrow rows moved by no
 * more than the noise (bench/README.md, 2026-12-07 17:18 UTC on). A loader's writes are one stream
 * (the appender) with little to run in parallel; a scan of a DuckDB source is not, so a process
 * that loads DuckDB to read first keeps DuckDB's own arenas.
 */
export const ALLOCATOR_SETTINGS = "narenas:1";

/**
 * Adds ALLOCATOR_SETTINGS to DuckDB's documented `DUCKDB_JE_MALLOC_CONF`, in front of what the
 * environment already says, so that a user's own `narenas` still wins (jemalloc takes the last).
 * jemalloc reads the variable once, when DuckDB's library is loaded: this must run before the
 * engine is imported, and changes nothing after.
 */
export function settleAllocator(env: NodeJS.ProcessEnv = process.env): void {
  const given = env.DUCKDB_JE_MALLOC_CONF;
  if (given === ALLOCATOR_SETTINGS || given?.startsWith(`${ALLOCATOR_SETTINGS},`)) return;
  env.DUCKDB_JE_MALLOC_CONF = given ? `${ALLOCATOR_SETTINGS},${given}` : ALLOCATOR_SETTINGS;
}
