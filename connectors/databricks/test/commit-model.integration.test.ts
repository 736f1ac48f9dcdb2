import { batchFromRows, type Column } from "@sqlload/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EmulatedWarehouse } from "./harness.js";

// Which commit model a target declares, per setting and per warehouse, and what `plan` is told.
describe("the Databricks commit model", () => {
  let modern: EmulatedWarehouse;
  let legacy: EmulatedWarehouse;
  beforeAll(async () => {
    modern = await EmulatedWarehouse.start();
    legacy = await EmulatedWarehouse.start({ atomic: false });
  });
  afterAll(async () => {
    await modern?.close();
    await legacy?.close();
  });

  const cases = [
    ["atomic", "modern", () => modern, "transactional", /transactions = "atomic"/],
    ["none", "modern", () => modern, "data-then-log", /transactions = "none"/],
    ["auto", "modern", () => modern, "transactional", /runs BEGIN ATOMIC blocks \(detected\)/],
    ["auto", "legacy", () => legacy, "data-then-log", /refused a BEGIN ATOMIC block \(detected: \[PARSE_SYNTAX_ERROR\]/],
  ] as const;
  for (const [setting, kind, warehouse, model, reason] of cases) {
    it(`transactions = "${setting}" on a ${kind} warehouse is ${model}`, async () => {
      const target = await warehouse().open(setting, `model_${setting}`);
      try {
        expect(target.capabilities.commitModel).toBe(model);
        const [note] = await target.planNotes({ schema: `model_${setting}`, name: "absent" });
        expect(note).toMatch(reason);
      } finally {
        await target.close();
      }
    });
  }

  it("data-then-log lands the data as one REPLACE WHERE and the record in a statement of its own", async () => {
    const target = await modern.open("none", "model_requests");
    try {
      const ref = { schema: "model_requests", name: "t" };
      const columns: Column[] = [
        { name: "id", type: { kind: "int64" }, nullable: false },
        { name: "v", type: { kind: "text" }, nullable: true },
      ];
      const ensured = await target.ensureTable(ref, columns, {});
      modern.emulator.failures.requests.length = 0;
      const unit = await target.begin(ref, {
        strategy: "delete_insert",
        columns: ensured,
        cursor: { column: "id", kind: "integer" },
      });
      await unit.deleteRange({ from: { kind: "integer", value: 1n } });
      await unit.write(batchFromRows(columns, [{ id: 1n, v: "a" }]));
      await unit.appendRunLog({
        runId: "r",
        table: "model_requests.t",
        at: "2026-10-12T16:00:00Z",
        formatVersion: 1,
        body: "{}",
      });
      await unit.commit();
      const shapes = modern.emulator.failures.requests.map((r) => r.shapes.join("+"));
      expect(shapes.filter((s) => !["create_table", "drop_table", "insert_values"].includes(s))).toEqual([
        "replace_where",
        "run_log_insert",
      ]);
    } finally {
      await target.close();
    }
  });
});
