import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type Manifest, tableDir } from "../src/index.js";
import { ok, project, sqlload } from "./e2e.js";
import { duck, targetRows } from "./harness.js";

// Schema evolution into the files target through the built CLI, from a DuckDB source whose table
// is altered between runs: the manifest records added and widened columns, older files stay as they are.
const TOML = `[target]
connector = "files"
path = "lake"

[sources.db]
connector = "duckdb"
path = "src.duckdb"

[sources.db.tables."main.t"]
cursor_column = "id"
write_strategy = "append"
`;

const manifestColumns = (dir: string) =>
  (
    JSON.parse(readFileSync(join(dir, "lake", tableDir({ schema: "raw", name: "db__t" }), "manifest.json"), "utf8")) as Manifest
  ).columns?.map((c) => `${c.name} ${c.type}`);

async function seeded(): Promise<{ dir: string; src: string }> {
  const dir = project(TOML);
  const src = join(dir, "src.duckdb");
  await duck(
    `ATTACH '${src}' AS s`,
    "CREATE TABLE s.t (id BIGINT NOT NULL, n INTEGER, amount DECIMAL(10,2), d DATE, old VARCHAR)",
    "INSERT INTO s.t VALUES (1, 7, 12.34, DATE '2026-10-01', 'kept')",
  );
  await ok(["load"], dir);
  return { dir, src };
}

describe("schema evolution into the files target", () => {
  it("adds columns, widens types in the manifest, keeps a dropped column, and loads", async () => {
    const { dir, src } = await seeded();
    await duck(
      `ATTACH '${src}' AS s`,
      "ALTER TABLE s.t ALTER n SET DATA TYPE BIGINT",
      "ALTER TABLE s.t ALTER amount SET DATA TYPE DECIMAL(14,4)",
      "ALTER TABLE s.t ALTER d SET DATA TYPE TIMESTAMP",
      "ALTER TABLE s.t DROP COLUMN old",
      "ALTER TABLE s.t ADD COLUMN extra VARCHAR",
      "INSERT INTO s.t VALUES (2, 1099511627776, 1234567890.1234, TIMESTAMP '2026-10-02 12:30:00', 'new')",
    );
    const plan = (await ok(["plan"], dir)).stdout;
    expect(plan).toContain("schema: widens n from int32 to int64");
    expect(plan).toContain("schema: widens amount from decimal(10,2) to decimal(14,4)");
    expect(plan).toContain("schema: widens d from date to timestamp");
    expect(plan).toContain("schema: adds column extra (text)");
    expect(plan).toContain("schema: the source no longer has old");
    await ok(["load"], dir);
    expect(manifestColumns(dir)).toEqual([
      "id int64",
      "n int64",
      "amount decimal(14,4)",
      "d timestamp",
      "old text",
      "extra text",
    ]);
    const rows = await targetRows(join(dir, "lake"), { schema: "raw", name: "db__t" }, "id");
    expect(rows.map((r) => [String(r.id), String(r.n), r.old ?? null, r.extra ?? null])).toEqual([
      ["1", "7", "kept", null],
      ["2", "1099511627776", null, "new"],
    ]);
    // The next run reads after the maximum as usual: nothing new.
    expect((await ok(["load"], dir)).stdout).toContain("loaded raw.db__t 0 rows");
  });

  it("refuses text → number with SL312, and the manifest is unchanged", async () => {
    const { dir, src } = await seeded();
    const before = manifestColumns(dir);
    await duck(
      `ATTACH '${src}' AS s`,
      "ALTER TABLE s.t ALTER old SET DATA TYPE BIGINT USING 5",
      "INSERT INTO s.t VALUES (2, 1, 1, DATE '2026-10-02', 6)",
    );
    const load = await sqlload(["load"], dir);
    expect(load.code).toBe(1);
    expect(load.stderr).toContain('SL312 table raw.db__t column "old" changed type from text to int64');
    expect(manifestColumns(dir)).toEqual(before);
  });
});
