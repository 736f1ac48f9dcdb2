import { describeTargetConformance } from "@sqlload/conformance";
import { afterAll } from "vitest";
import { EmulatedWarehouse } from "./harness.js";

/**
 * The published target suite against the Databricks emulator, once per commit model: every unit
 * one BEGIN ATOMIC block (`transactions = "atomic"`), and data first then the run log
 * (`transactions = "none"`). The real-workspace run is in real-workspace.integration.test.ts.
 */
let warehouse: Promise<EmulatedWarehouse> | undefined;
const started = () => {
  warehouse ??= EmulatedWarehouse.start();
  return warehouse;
};
afterAll(async () => {
  await (await warehouse)?.close();
});

const skips = {
  oddIdentifiers: "Unity Catalog refuses periods, spaces and control characters in table names and folds them to lower case",
  oddSchemaNames: "Unity Catalog refuses periods, spaces and control characters in schema names",
  "type.nestedList": "lists of lists are not written by this connector yet (element values would need nested casts)",
} as const;

let schemas = 0;
for (const transactions of ["atomic", "none"] as const) {
  describeTargetConformance(`databricks (emulator, transactions = "${transactions}")`, {
    skips,
    async connect() {
      const w = await started();
      const schema = `conf_${transactions}_${process.pid}_${++schemas}`;
      const target = await w.open(transactions, schema);
      return {
        target,
        schema,
        readAll: (ref) => w.readAll(ref),
        cleanup: () => w.dropSchemas(schema),
      };
    },
  });
}
