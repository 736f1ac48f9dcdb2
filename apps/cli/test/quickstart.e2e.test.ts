import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { queryDuckDB, sqlload, tempDir } from "./cli.js";

describe("quickstart through the built CLI", () => {
  const dir = join(tempDir(), "q");

  beforeAll(async () => {
    const init = await sqlload(["init", dir], { cwd: tempDir() });
    expect(init.code, init.stderr).toBe(0);
  });

  it("checks the new project", async () => {
    const check = await sqlload(["check"], { cwd: dir });
    expect(check.code, check.stderr).toBe(0);
    expect(check.stdout).toContain("1 table");
  });

  it("plans a first run that reads everything", async () => {
    const plan = await sqlload(["plan"], { cwd: dir });
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain("raw.shop__orders ← shop.orders");
    expect(plan.stdout).toContain("└── cursor updated_at everything (first run, no cursor_start)");
  });

  it("loads 100,000 rows, loads again without duplicating, and plans from the destination maximum", async () => {
    const first = await sqlload(["load"], { cwd: dir });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/^loaded raw\.shop__orders 100,000 rows \d+\.\ds/m);
    const warehouse = join(dir, "warehouse.duckdb");
    expect(
      await queryDuckDB(warehouse, "select count(*)::int as n, count(distinct id)::int as ids from raw.shop__orders"),
    ).toEqual([{ n: 100000, ids: 100000 }]);

    const second = await sqlload(["load"], { cwd: dir });
    expect(second.code, second.stderr).toBe(0);
    expect(await queryDuckDB(warehouse, "select count(*)::int as n from raw.shop__orders")).toEqual([{ n: 100000 }]);

    const [{ max }] = (await queryDuckDB(
      warehouse,
      "select strftime(max(updated_at), '%Y-%m-%d %H:%M:%S.%f') as max from raw.shop__orders",
    )) as [{ max: string }];
    const plan = await sqlload(["plan", "shop__orders"], { cwd: dir });
    expect(plan.stdout).toContain(`└── cursor updated_at from ${max}+00 (destination maximum)`);
  });

  it("prints the plan as JSON", async () => {
    const plan = await sqlload(["plan", "--json"], { cwd: dir });
    const json = JSON.parse(plan.stdout) as { tables: { table: string; cursor: { start: { reason: string } } }[] };
    expect(json.tables[0]?.table).toBe("raw.shop__orders");
    expect(json.tables[0]?.cursor.start.reason).toBe("destination maximum");
  });

  it("refuses a selection that matches nothing, with exit code 2", async () => {
    const result = await sqlload(["load", "shop__nope"], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("SL114");
  });
});
