import { describeTargetConformance, type TargetFixture } from "@sqlload/conformance";
import { afterAll, beforeAll, describe, it } from "vitest";
import { emulatorEngine, freshDataset, openTarget, readerFor, readTable, realEngine } from "./harness.js";

const skips = {
  oddIdentifiers: "BigQuery column names cannot hold quotes, backticks, dots or brackets, and table names no quotes or dots",
  oddSchemaNames: "BigQuery dataset names hold only letters, digits and underscores",
  "type.list": "a BigQuery ARRAY holds no NULL element, and a NULL array reads back as an empty one",
  "type.nestedList": "BigQuery has no arrays of arrays",
} as const;

/**
 * The published target suite against the BigQuery emulator, and against real BigQuery when
 * SQLLOAD_BIGQUERY_PROJECT is set (each test in a dataset of its own, deleted after).
 */
const emulator = emulatorEngine();
const real = realEngine();
const engines = "skipped" in real ? [emulator] : [emulator, real];
if ("skipped" in real) {
  describe("bigquery (real service)", () => {
    it.skip(real.skipped, () => {});
  });
  console.log(`skipped: ${real.skipped}`);
}

for (const engine of engines) {
  beforeAll(() => engine.start());
  afterAll(() => engine.stop());

  describeTargetConformance(`bigquery (${engine.name})`, {
    readsNewestRunLog: true,
    skips,
    async connect(): Promise<TargetFixture> {
      const options = engine.options();
      const schema = freshDataset();
      const target = await openTarget(options, schema);
      const reader = readerFor(options);
      return {
        target,
        schema,
        readAll: (ref) => readTable(reader, ref.schema, ref.name),
        async cleanup() {
          if (engine.name === "emulator") return;
          for (const name of [schema, `${schema}_2`]) {
            await reader.client
              .dataset(name)
              .delete({ force: true })
              .catch(() => undefined);
          }
        },
      };
    },
  });
}
