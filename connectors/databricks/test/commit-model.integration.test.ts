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

  it("a later run finds an up-to-date table from one catalog read, and a log it read is not created again", async () => {
    const ref = { schema: "model_later", name: "t" };
    const columns: Column[] = [{ name: "id", type: { kind: "int64" }, nullable: false }];
    const record = { runId: "r1", table: "model_later.t", at: "2026-10-12T16:00:00Z", formatVersion: 1, body: "{}" };
    const first = await modern.open("atomic", ref.schema);
    try {
      const unit = await first.begin(ref, { strategy: "append", columns: await first.ensureTable(ref, columns, {}) });
      await unit.appendRunLog(record);
      await unit.commit();
    } finally {
      await first.close();
    }
    const target = await modern.open("atomic", ref.schema);
    try {
      const statements = async (work: () => Promise<unknown>) => {
        const from = modern.emulator.failures.requests.length;
        await work();
        return modern.emulator.failures.requests.slice(from).map((r) => r.statement ?? r.operation);
      };
      expect(await target.readRunLog(ref, { last: 100 })).toEqual([record]);
      // Under the table's lock, what describeTable read serves ensureTable too.
      const lock = await target.lockTable(ref);
      const describedOnce = await statements(async () => {
        await target.describeTable(ref);
        await target.ensureTable(ref, columns, {});
      });
      expect(describedOnce.filter((s) => /information_schema/i.test(s))).toHaveLength(1);
      await lock.release();
      expect(
        (await statements(() => target.ensureTable(ref, columns, {}))).filter((s) => /information_schema/i.test(s)),
      ).toHaveLength(1);
      const unit = await target.begin(ref, { strategy: "append", columns });
      await unit.appendRunLog({ ...record, runId: "r2" });
      const committed = await statements(() => unit.commit());
      expect(committed.filter((s) => /CREATE TABLE IF NOT EXISTS .*_sqlload_runs/is.test(s))).toEqual([]);
      expect((await target.readRunLog(ref)).map((r) => r.runId)).toEqual(["r1", "r2"]);
    } finally {
      await target.close();
    }
  });
});
