import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { TestProject } from "./project.js";
import { duckdbAndPostgres } from "./targets.js";

// Schema evolution (SPEC §13): a source that gains columns, widens types or drops columns between
// runs, through the built CLI into DuckDB and Postgres.
const targets = duckdbAndPostgres();

const BEFORE = { id: "bigint not null", n: "integer", amount: "decimal(10,2)", d: "date", f: "real", old: "text" };
const AFTER = { id: "bigint not null", n: "bigint", amount: "decimal(14,4)", d: "timestamp", f: "double", extra: "text" };
const TOML = `[sources.src.tables.t]\ncursor_column = "id"\n`;

/** Gives the project's table function new declared columns (the module is generated from them). */
function declare(p: TestProject, columns: Record<string, string>): void {
  copyFileSync(join(new TestProject({ t: { columns } }).dir, "src.ts"), join(p.dir, "src.ts"));
}

describe.each(targets)("schema evolution into $name", (target) => {
  const typeOf = async (p: TestProject, column: string) => {
    const sql =
      target.name === "duckdb"
        ? `select data_type as t from information_schema.columns where table_schema = 'raw' and table_name = 'src__t' and column_name = '${column}'`
        : `select format_type(atttypid, atttypmod) as t from pg_attribute where attrelid = 'raw.src__t'::regclass and attname = '${column}'`;
    return String((await target.query(p, sql))[0]?.t).toLowerCase();
  };

  it("adds columns, widens types, keeps dropped columns, shows it in plan, and loads", async () => {
    // append: the second run adds only the new row, so the first row shows the widened old values.
    const p = await target.project({ t: { columns: BEFORE } }, `${TOML}write_strategy = "append"\n`);
    p.rows("t", [{ id: 1, n: 7, amount: "12.34", d: "2026-10-01", f: 1.5, old: "kept" }]);
    await p.ok("load");
    declare(p, AFTER);
    p.rows("t", [{ id: 2, n: 2n ** 40n, amount: "1234567890.1234", d: "2026-10-02T12:30:00Z", f: 0.1, extra: "new" }]);
    const plan = (await p.ok("plan")).stdout;
    expect(plan).toContain("schema: adds column extra (text)");
    expect(plan).toContain("schema: widens n from int32 to int64");
    expect(plan).toContain("schema: widens amount from decimal(10,2) to decimal(14,4)");
    expect(plan).toContain("schema: widens d from date to timestamp");
    expect(plan).toContain("schema: widens f from float32 to float64");
    expect(plan).toContain("schema: the source no longer has old; it stays in the target, NULL for new rows");
    await p.ok("load");
    expect(await typeOf(p, "n")).toBe("bigint");
    expect(await typeOf(p, "amount")).toMatch(/^(decimal|numeric)\(14,\s?4\)$/);
    expect(await typeOf(p, "d")).toMatch(/^timestamp/);
    expect(await typeOf(p, "f")).toMatch(/^(double|double precision)$/);
    const rows = await target.query(
      p,
      "select id::int as id, n::text as n, amount::text as amount, cast(d as varchar) as d, old, extra from raw.src__t order by id",
    );
    expect(rows).toEqual([
      { id: 1, n: "7", amount: "12.3400", d: "2026-10-01 00:00:00", old: "kept", extra: null },
      { id: 2, n: String(2n ** 40n), amount: "1234567890.1234", d: "2026-10-02 12:30:00", old: null, extra: "new" },
    ]);
    // Applied once: the next plan has nothing to change but the dropped column's note.
    const again = (await p.ok("plan")).stdout;
    expect(again).not.toContain("schema: widens");
    expect(again).toContain("schema: the source no longer has old");
  });

  it("refuses a change that loses data with SL312 naming table, column and types, and changes nothing", async () => {
    const p = await target.project({ t: { columns: BEFORE } }, TOML);
    p.rows("t", [{ id: 1, n: 7, amount: "12.34", d: "2026-10-01", f: 1.5, old: "kept" }]);
    await p.ok("load");
    declare(p, { ...BEFORE, n: "smallint", old: "bigint", extra: "text" });
    p.rows("t", [{ id: 2, n: 1, amount: "1.00", d: "2026-10-02", f: 1, old: 5, extra: "x" }]);
    const plan = await p.run("plan");
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain("SL312");
    const load = await p.run("load");
    expect(load.code).toBe(1);
    expect(load.stderr).toMatch(/SL312 table raw\.src__t column "(n|old)" changed type from/);
    expect(load.stderr).toContain("--reload");
    // Nothing changed: no new column, no new row, the old types.
    expect(await typeOf(p, "extra")).toBe("undefined");
    expect(await typeOf(p, "n")).toBe("integer");
    expect(await target.query(p, "select count(*)::int as c from raw.src__t")).toEqual([{ c: 1 }]);
    // --reload rebuilds the table with the new types.
    await p.ok("load", "--reload");
    expect(await typeOf(p, "old")).toBe("bigint");
  });

  it('refuses any change under on_schema_change = "fail" (SL313), and evolves again once allowed', async () => {
    const p = await target.project({ t: { columns: BEFORE } }, `${TOML}on_schema_change = "fail"\n`);
    p.rows("t", [{ id: 1, n: 7, amount: "12.34", d: "2026-10-01", f: 1.5, old: "kept" }]);
    await p.ok("load");
    expect((await p.ok("plan")).stdout).not.toContain("schema:");
    declare(p, { ...BEFORE, extra: "text" });
    const load = await p.run("load");
    expect(load.code).toBe(1);
    expect(load.stderr).toContain("SL313");
    expect(load.stderr).toContain("adds column extra (text)");
    const toml = join(p.dir, "sqlload.toml");
    writeFileSync(toml, readFileSync(toml, "utf8").replace('on_schema_change = "fail"', 'on_schema_change = "evolve"'));
    await p.ok("load");
    expect(await typeOf(p, "extra")).toMatch(/^(varchar|text)$/);
  });
});
