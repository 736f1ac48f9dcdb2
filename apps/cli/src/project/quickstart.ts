/**
 * The files `sqlload init` writes: a project that loads generated orders into an embedded DuckDB
 * file, so a newcomer sees a real incremental load with no server.
 */
export function quickstartFiles(anchor: Date): Record<string, string> {
  // The data ends at the day `init` ran, fixed in the module, so every run sees the same rows.
  const end = new Date(Date.UTC(anchor.getUTCFullYear(), anchor.getUTCMonth(), anchor.getUTCDate())).toISOString();
  return {
    "sqlload.toml": `# sqlload project. Validate with \`sqlload check\`, preview with \`sqlload plan\`, run with \`sqlload load\`.

[target]
connector = "duckdb"          # the embedded default: one file, no server
path = "warehouse.duckdb"
schema = "raw"

[sources.shop]
connector = "typescript"
module = "sources/shop.ts"    # tables defined in code

# Settings here override those in the module's table options.
[sources.shop.tables.orders]
description = "Orders, one row per order (generated)."
cursor_column = "updated_at"
write_strategy = "delete_insert"
primary_key = ["id"]
`,
    "sources/shop.ts": `import { type Context, source } from "sqlload";

const shop = source("shop");

/** The generated data covers the year before this instant. */
const END = Date.parse("${end}");
const ROWS = 100_000;
const YEAR_MS = 365 * 24 * 3600 * 1000;
const STATUSES = ["placed", "paid", "shipped", "delivered", "returned"];

/** A small deterministic pseudo-random generator, so every run yields the same rows. */
function random(seed: number): number {
  let x = (seed * 2654435761) >>> 0;
  x ^= x << 13;
  x ^= x >>> 17;
  x ^= x << 5;
  return (x >>> 0) / 4294967296;
}

/** Orders, one row per order, ordered by updated_at over the past year. */
export const orders = shop.table(
  {
    columns: {
      id: "bigint not null",
      customer_id: "bigint",
      amount: "decimal(12,2)",
      status: "text",
      updated_at: "timestamptz not null",
    },
  },
  async function* orders(ctx: Context) {
    // Start at the first row at or after the cursor: the engine would drop earlier rows anyway.
    const from = ctx.cursorValue instanceof Date ? ctx.cursorValue.getTime() : -Infinity;
    const start = END - YEAR_MS;
    const step = YEAR_MS / ROWS;
    let page = [];
    for (let i = Math.max(0, Math.floor((from - start) / step)); i < ROWS; i++) {
      const updatedAt = new Date(start + Math.floor(i * step));
      if (updatedAt.getTime() < from) continue;
      page.push({
        id: i + 1,
        customer_id: 1 + Math.floor(random(i + 1) * 5000),
        amount: (Math.floor(random(i + 7) * 100_000) / 100).toFixed(2),
        status: STATUSES[Math.floor(random(i + 13) * STATUSES.length)],
        updated_at: updatedAt,
      });
      // Yielding arrays of rows is faster than one row at a time.
      if (page.length === 5000) {
        yield page;
        page = [];
      }
    }
    yield page;
  },
);
`,
    ".gitignore": "warehouse.duckdb\nwarehouse.duckdb.wal\n.sqlload/\n.env\n",
  };
}
