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
} as const;

let schemas = 0;
// Each commit model with parameterized INSERTs, and the atomic model once more with every unit
// through the volume (threshold 0: Parquet, PUT, COPY INTO, REMOVE, even for one row). The write
// path ends in the unit's build table, so the commit statements are the same on both paths; the
// bulk path on the data-then-log model runs in bulk-path.integration.test.ts and the crash tests.
const configurations = [
  ["atomic", "insert"],
  ["none", "insert"],
  ["atomic", { threshold: 0 }],
] as const;
for (const [transactions, path] of configurations) {
  const label = path === "insert" ? "INSERT" : "volume";
  describeTargetConformance(`databricks (emulator, transactions = "${transactions}", ${label})`, {
    readsNewestRunLog: true,
    skips,
    async connect() {
      const w = await started();
      const schema = `conf_${transactions}_${label.toLowerCase()}_${process.pid}_${++schemas}`;
      const target = await w.open(transactions, schema, path);
      return {
        target,
        schema,
        readAll: (ref) => w.readAll(ref),
        cleanup: () => w.dropSchemas(schema),
      };
    },
  });
}
