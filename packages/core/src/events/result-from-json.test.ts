import { describe, expect, it } from "vitest";
import { integerCursor, timestampCursor } from "../cursor/cursor-value.js";
import { SqlloadError } from "../errors/sqlload-error.js";
import { resultToJSON } from "./event-json.js";
import { resultFromJSON } from "./result-from-json.js";
import type { TableResult } from "./run-event.js";

describe("resultFromJSON", () => {
  it("reads back what resultToJSON wrote, exact positions and error included", () => {
    const result: TableResult = {
      table: "raw.app__orders",
      source: "app",
      key: "public.orders",
      status: "skipped",
      rows: 400,
      dropped: 2,
      windows: 4,
      positionBefore: integerCursor(9007199254740993n),
      positionAfter: timestampCursor(1767323045123456n),
      caughtUp: false,
      seconds: 1.25,
      error: new SqlloadError("SL306", "locked by another run", { table: "raw.app__orders" }),
    };
    const back = resultFromJSON(JSON.parse(JSON.stringify(resultToJSON(result))));
    expect({ ...back, error: undefined }).toEqual({ ...result, error: undefined });
    expect(back.error?.code).toBe("SL306");
    expect(back.error?.retryable).toBe(true);
    expect(back.error?.message).toBe("locked by another run");
  });

  it("keeps an unknown code visible as an internal error rather than dropping it", () => {
    const back = resultFromJSON({
      table: "t",
      source: "s",
      key: "k",
      status: "failed",
      error: { code: "SL999", message: "new" },
    });
    expect(back.error?.code).toBe("SL900");
    expect(back.caughtUp).toBeUndefined();
  });
});
