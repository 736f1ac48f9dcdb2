import { execFileSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { expect, it } from "vitest";

// Every run loads its connectors' entries (pnpm build); what they evaluate on load, every run pays.
// The first `toLocaleString` or `Intl.NumberFormat` of a process loads ICU's number formats (about
// 15–20 ms, a tenth of a no-op load), so nothing may format a number that way on load: counts are
// grouped with core's `formatCount`.
const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..", "..");
const entries = ["duckdb", "postgres", "files", "typescript", "clickhouse", "bigquery", "snowflake", "databricks"].map(
  (name) => pathToFileURL(join(root, "connectors", name, "dist", "index.js")).href,
);

it("loads every connector without formatting a number through Intl", () => {
  const script = `
    const used = [];
    const trap = (name) => function () { used.push(name + " " + new Error().stack.split("\\n")[2]?.trim()); };
    Number.prototype.toLocaleString = trap("Number.prototype.toLocaleString");
    BigInt.prototype.toLocaleString = trap("BigInt.prototype.toLocaleString");
    Intl.NumberFormat = trap("Intl.NumberFormat");
    for (const entry of ${JSON.stringify(entries)}) await import(entry);
    console.log(JSON.stringify(used));
  `;
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
  expect(JSON.parse(out)).toEqual([]);
});
