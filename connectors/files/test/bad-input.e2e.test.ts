import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { project, queryDuckDB, sqlload } from "./e2e.js";
import { writeText } from "./harness.js";

// A CSV whose line 250,002 holds text in a column DuckDB detected as a number, far past the lines
// it samples. DuckDB's streaming client ended such a read as if the file ended there, so the row
// path committed the 235,520 rows before it and reported success; the native path reported
// "Current transaction is aborted" instead of the line. Both must fail the table, commit nothing
// and say which line of which file, which column and which value.

const ROWS = 300_000;
const BAD = 250_000;

function csv(): string {
  const lines = ["id,v"];
  for (let i = 0; i < ROWS; i++) lines.push(`${i},${i === BAD ? "oops" : i}`);
  return `${lines.join("\n")}\n`;
}

describe("a CSV line that does not convert", () => {
  for (const native of [false, true]) {
    it(`fails the table and commits nothing (${native ? "native file reads" : "rows through sqlload"})`, async () => {
      const dir = project(`[target]
connector = "duckdb"
path = "w.duckdb"
native_file_reads = ${native}

[sources.lake]
connector = "files"
path = "landing"

[sources.lake.tables.bad]
glob = "bad.csv"
cursor_column = "id"
`);
      writeText(join(dir, "landing", "bad.csv"), csv());
      const run = await sqlload(["load"], dir);
      const output = `${run.stdout}\n${run.stderr}`;
      expect(run.code).not.toBe(0);
      expect(output).toMatch(/failed raw\.lake__bad: SL300 .*CSV Error on Line: 250002 of \S*bad\.csv/);
      expect(output).toContain(`Error when converting column "v". Could not convert string "oops" to 'BIGINT'`);
      expect(output).toContain("(the line: 250000,oops)");
      expect(output).not.toMatch(/transaction is aborted/);
      const tables = await queryDuckDB(
        join(dir, "w.duckdb"),
        "SELECT count(*)::INTEGER AS n FROM information_schema.tables WHERE table_name = 'lake__bad'",
      );
      if (tables[0]?.n === 1)
        expect(await queryDuckDB(join(dir, "w.duckdb"), "SELECT count(*)::INTEGER AS n FROM raw.lake__bad")).toEqual([{ n: 0 }]);
    });
  }
});
