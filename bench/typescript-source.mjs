#!/usr/bin/env node
// The TypeScript source's throughput in rows/s (issue 15): a project's table function yields
// arrays of rows shaped like `orders`, loaded into DuckDB through the built CLI. The same rows
// generated and discarded in one process, with no load, are the ceiling the source cannot beat.
//
//   pnpm build && node bench/typescript-source.mjs [--rows 2000000] [--repeat 2] [--quick]
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { arg, best, cli, describeMachine, hasFlag, peakRss, runs, seconds } from "./common.mjs";

const quick = hasFlag("quick");
const rows = arg("rows", quick ? 20_000 : 2_000_000);
const repeat = arg("repeat", quick ? 1 : 2);

// Plain JavaScript in a .ts file, so the source's transpiler has nothing to strip.
const generator = `function* rows(n) {
  const statuses = ["new", "paid", "shipped", "cancelled"];
  const t0 = Date.UTC(2026, 0, 1);
  for (let start = 1; start <= n; start += 10000) {
    const chunk = [];
    for (let g = start; g < Math.min(n + 1, start + 10000); g++) {
      chunk.push({ id: g, customer_id: (g * 7919) % 100000, amount: ((g % 100000) / 100 + 0.01).toFixed(2),
        status: statuses[g % 4], updated_at: new Date(t0 + g * 1000) });
    }
    yield chunk;
  }
}`;

const dir = mkdtempSync(join(tmpdir(), "sqlload-bench-ts-"));
try {
  writeFileSync(
    join(dir, "shop.ts"),
    `import { source } from "sqlload";
${generator}
const shop = source("shop");
export const orders = shop.table(
  { columns: { id: "bigint not null", customer_id: "bigint", amount: "decimal(12,2)", status: "text", updated_at: "timestamptz" } },
  function* orders() { yield* rows(${rows}); },
);
`,
  );
  writeFileSync(join(dir, "generate.mjs"), `${generator}\nlet n = 0;\nfor (const c of rows(${rows})) n += c.length;\n`);
  writeFileSync(
    join(dir, "sqlload.toml"),
    `[target]\npath = "w.duckdb"\n\n[sources.shop]\nconnector = "typescript"\nmodule = "shop.ts"\n\n[sources.shop.tables.orders]\ncursor_column = "updated_at"\n`,
  );
  const loads = [];
  const ceiling = [];
  for (let i = 0; i < repeat; i++) {
    ceiling.push(await peakRss(process.execPath, [join(dir, "generate.mjs")], dir));
    rmSync(join(dir, "w.duckdb"), { force: true });
    rmSync(join(dir, "w.duckdb.wal"), { force: true });
    const run = await peakRss(process.execPath, [cli, "load"], dir);
    if (!run.out.includes(`${rows.toLocaleString("en")} rows`) && !run.out.includes(`${rows} rows`)) {
      throw new Error(`the load did not report ${rows} rows:\n${run.out}`);
    }
    loads.push(run);
  }
  const b = best(loads);
  const c = best(ceiling);
  console.log(describeMachine());
  console.log(`generating ${rows.toLocaleString("en")} rows in one process, no load: ${seconds(c)}${runs(ceiling)}`);
  console.log(
    `sqlload load (TypeScript source → DuckDB): ${seconds(b)}, ${Math.round(rows / b.s).toLocaleString("en")} rows/s ` +
      `(${Math.round(rows / (b.s - c.s)).toLocaleString("en")} rows/s beyond generating them), peak RSS ${b.rssMB.toFixed(0)} MB${runs(loads)}`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
