import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { CLI, ClickHouseProject, removeProjects, tableModule } from "./cli.js";

// Schema evolution into ClickHouse through the built CLI (chdb): new columns, lossless widening by
// MODIFY COLUMN, dropped columns kept, lossy changes refused before anything changes.
const built = existsSync(CLI);
afterAll(() => removeProjects());

const BEFORE = { id: "bigint not null", n: "integer", amount: "decimal(10,2)", d: "date", old: "text" };
const AFTER = { id: "bigint not null", n: "bigint", amount: "decimal(14,4)", d: "timestamp", extra: "text" };
const TOML = `[sources.src.tables.t]\ncursor_column = "id"\nwrite_strategy = "append"\n`;

describe.runIf(built)("schema evolution into ClickHouse", () => {
  const types = (p: ClickHouseProject) =>
    p.query<{ name: string; type: string }>(
      "SELECT name, type FROM system.columns WHERE database = 'raw' AND table = 'src__t' ORDER BY position",
    );

  it("adds columns, widens types, keeps a dropped column, and loads", async () => {
    const p = new ClickHouseProject(tableModule({ t: { columns: BEFORE } }), TOML);
    p.rows("t", [{ id: 1n, n: 7, amount: "12.34", d: "2026-10-01", old: "kept" }]);
    await p.ok("load");
    writeFileSync(join(p.dir, "src.ts"), tableModule({ t: { columns: AFTER } }));
    p.rows("t", [{ id: 2n, n: 2n ** 40n, amount: "1234567890.1234", d: "2026-10-02T12:30:00Z", extra: "new" }]);
    const plan = (await p.ok("plan")).stdout;
    expect(plan).toContain("schema: widens n from int32 to int64");
    expect(plan).toContain("schema: widens d from date to timestamp");
    expect(plan).toContain("schema: the source no longer has old");
    await p.ok("load");
    expect(await types(p)).toEqual([
      { name: "id", type: "Int64" },
      { name: "n", type: "Nullable(Int64)" },
      { name: "amount", type: "Nullable(Decimal(14, 4))" },
      { name: "d", type: expect.stringMatching(/^Nullable\(DateTime64\(6/) },
      { name: "old", type: "Nullable(String)" },
      { name: "extra", type: "Nullable(String)" },
    ]);
    const rows = await p.query(
      "SELECT toString(id) AS id, toString(n) AS n, toString(amount) AS amount, toString(d) AS d, old, extra FROM raw.src__t ORDER BY id",
    );
    expect(rows).toEqual([
      { id: "1", n: "7", amount: "12.34", d: "2026-10-01 00:00:00.000000", old: "kept", extra: null },
      { id: "2", n: String(2n ** 40n), amount: "1234567890.1234", d: "2026-10-02 12:30:00.000000", old: null, extra: "new" },
    ]);
  });

  it("refuses text → number with SL312 and changes nothing", async () => {
    const p = new ClickHouseProject(tableModule({ t: { columns: BEFORE } }), TOML);
    p.rows("t", [{ id: 1n, n: 7, amount: "12.34", d: "2026-10-01", old: "kept" }]);
    await p.ok("load");
    writeFileSync(join(p.dir, "src.ts"), tableModule({ t: { columns: { ...BEFORE, old: "bigint", extra: "text" } } }));
    p.rows("t", [{ id: 2n, n: 1, amount: "1.00", d: "2026-10-02", old: 5n, extra: "x" }]);
    const before = await types(p);
    const load = await p.run(["load"]);
    expect(load.code).toBe(1);
    expect(load.stderr).toContain('SL312 table raw.src__t column "old" changed type from text to int64');
    expect(await types(p)).toEqual(before);
    expect(await p.query("SELECT toString(count()) AS c FROM raw.src__t")).toEqual([{ c: "1" }]);
  });
});
