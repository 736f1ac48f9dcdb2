import { afterAll, beforeAll, describe, expect, it } from "vitest";
import connector from "../src/index.js";
import { EmulatedWarehouse } from "./harness.js";

// Connecting: a wrong token is an authentication error (never retried) whose message hides the token.
describe("connecting to a Databricks warehouse", () => {
  let warehouse: EmulatedWarehouse;
  beforeAll(async () => {
    warehouse = await EmulatedWarehouse.start();
  });
  afterAll(async () => {
    await warehouse?.close();
  });

  it("refuses a wrong token with SL309, not retryable, without printing it", async () => {
    const options = { ...warehouse.settings("none"), token: "dapi-wrong-secret" };
    const error = await connector.target?.({ options, projectDir: warehouse.dir, schema: "raw" }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code: "SL309", retryable: false });
    expect(JSON.stringify({ message: (error as Error).message, hint: (error as { hint?: string }).hint })).not.toContain(
      "dapi-wrong-secret",
    );
  });
});
