import { SqlloadError, type VendorErrorKind } from "@sqlload/core";
import { describe, expect, it } from "vitest";
import { committedDurably, duckdbErrorKind, openError, wrapDuckDBError } from "./errors.js";

describe("duckdbErrorKind", () => {
  it.each<[string, VendorErrorKind]>([
    ['IO Error: Could not set lock on file "/p/w.duckdb": Conflicting lock is held in /usr/bin/node (PID 12)', "lock"],
    ['TransactionContext Error: Catalog write-write conflict on create with "s1"', "conflict"],
    ["Catalog Error: Table with name x does not exist!\n\nLINE 1: ...", "missing_table"],
    ["Constraint Error: NOT NULL constraint failed: t.x", "unknown"],
    ["Conversion Error: Could not convert string 'x' to INT32", "bad_data"],
    ["Conversion Error: CSV Error on Line: 250002\nOriginal Line: 250000,oops", "bad_data"],
    ["Invalid Input Error: CSV Error on Line: 3\nExpected Number of Columns: 2 Found: 3", "bad_data"],
    ['Invalid Input Error: Error when sniffing file "/d/x.csv".', "unknown"],
    ['Invalid Input Error: JSON transform error in file "/d/e.jsonl", in line 250001: Failed to cast', "bad_data"],
    ['Invalid Input Error: Malformed JSON in file "/d/e.jsonl", at byte 3 in line 7: unexpected character.', "bad_data"],
    ['Parser Error: syntax error at or near "at"', "unknown"],
  ])("%s → %s", (message, kind) => expect(duckdbErrorKind(new Error(message))).toBe(kind));
});

describe("wrapping", () => {
  it("keeps the first line, the cause and the table", () => {
    const cause = new Error("Binder Error: no such column\n\nLINE 1: select ...\n        ^");
    const error = wrapDuckDBError(cause, "target", "writing raw.x failed", "raw.x");
    expect(error).toMatchObject({
      code: "SL305",
      message: "writing raw.x failed: Binder Error: no such column",
      table: "raw.x",
      cause,
    });
    expect(wrapDuckDBError(cause, "source", "reading x").code).toBe("SL304");
  });

  it("says where a CSV line failed and why, in one line", () => {
    const long = "x".repeat(500);
    const cause = new Error(
      `Conversion Error: CSV Error on Line: 250002\nOriginal Line: 250000,${long}\nError when converting column "v". Could not convert string "oops" to 'BIGINT'\n\nColumn v is being converted as type BIGINT\nPossible solutions:\n* Override the type\n\n  file = s3://bucket/landing/bad.csv?X-Amz-Signature=secret\n  delimiter = , (Auto-Detected)\n`,
    );
    const error = wrapDuckDBError(cause, "source", "reading lake.bad failed", "lake.bad");
    expect(error.code).toBe("SL300");
    expect(error.retryable).toBe(false);
    expect(error.message).toBe(
      `reading lake.bad failed: Conversion Error: CSV Error on Line: 250002 of s3://bucket/landing/bad.csv: Error when converting column "v". Could not convert string "oops" to 'BIGINT' (the line: 250000,${long.slice(0, 193)}…)`,
    );
    expect(error.message).not.toMatch(/secret/);
    expect(error.hint).toMatch(/Fix the value/);
    // A local file's name keeps its `?`.
    const local = wrapDuckDBError(
      new Error("Conversion Error: CSV Error on Line: 3\n  file = /d/sales?v=2.csv\n"),
      "source",
      "x",
    );
    expect(local.message).toBe("x: Conversion Error: CSV Error on Line: 3 of /d/sales?v=2.csv");
  });

  it("makes a write-write conflict retryable and keeps SqlloadErrors as they are", () => {
    const conflict = wrapDuckDBError(new Error("TransactionContext Error: Catalog write-write conflict"), "target", "x");
    expect([conflict.code, conflict.retryable, conflict.hint]).toEqual(["SL305", true, expect.stringMatching(/Another writer/)]);
    const own = new SqlloadError("SL302", "changed");
    expect(wrapDuckDBError(own, "target", "x")).toBe(own);
  });

  it("maps a held file to SL306 and a missing one to the role's failure", () => {
    expect(openError(new Error("IO Error: Could not set lock on file x"), "/p/w.duckdb", "target")).toMatchObject({
      code: "SL306",
      retryable: true,
    });
    const missing = openError(
      new Error("IO Error: Cannot open database x in read-only mode: database does not exist"),
      "/p/s.duckdb",
      "source",
    );
    expect(missing).toMatchObject({ code: "SL304", retryable: false, hint: "Check `path`." });
    expect(missing.message).toMatch(/^the DuckDB file \/p\/s\.duckdb does not exist: IO Error/);
  });

  it("tells what to set when DuckDB runs out of its memory_limit, and when a failed checkpoint stopped the file", () => {
    for (const message of [
      "TransactionContext Error: Failed to commit: failed to pin block of size 256.0 KiB (244.0 MiB/244.1 MiB used)",
      "Out of Memory Error: failed to allocate data of size 16.0 MiB (240.4 MiB/244.1 MiB used)",
    ]) {
      const error = wrapDuckDBError(new Error(message), "target", "committing raw.docs failed", "raw.docs");
      expect([error.code, error.table]).toEqual(["SL305", "raw.docs"]);
      expect(error.hint).toMatch(/memory_limit.*2,048.*"-1"/s);
    }
    const stopped = wrapDuckDBError(
      new Error(
        'IO Error: Database "w" has been invalidated because checkpointing failed. Detach and reattach it before using it again.',
      ),
      "target",
      "cannot start a commit on raw.docs",
    );
    expect(stopped.hint).toMatch(/could not checkpoint.*what was committed is kept.*memory_limit/s);
    expect(wrapDuckDBError(new Error("Binder Error: x"), "target", "x").hint).not.toMatch(/memory_limit/);
  });

  it("knows DuckDB's report of a commit that took effect before its checkpoint failed", () => {
    const durable =
      'IO Error: Transaction COMMIT succeeded and is durable, but the autocheckpoint failed. Detach and reattach the database to recover. Checkpoint failed for database "w".';
    expect(committedDurably(new Error(durable))).toBe(true);
    expect(committedDurably(new Error("TransactionContext Error: Failed to commit: failed to pin block"))).toBe(false);
  });
});
