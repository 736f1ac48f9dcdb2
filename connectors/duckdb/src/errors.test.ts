import { SqlloadError } from "@sqlload/core";
import { describe, expect, it } from "vitest";
import { type DuckDBErrorKind, duckdbErrorKind, openError, wrapDuckDBError } from "./errors.js";

describe("duckdbErrorKind", () => {
  it.each<[string, DuckDBErrorKind]>([
    ['IO Error: Could not set lock on file "/p/w.duckdb": Conflicting lock is held in /usr/bin/node (PID 12)', "locked"],
    ['IO Error: Cannot open database "/p/x.duckdb" in read-only mode: database does not exist', "missing-file"],
    ["Catalog Error: Table with name x does not exist!\n\nLINE 1: ...", "catalog"],
    ['TransactionContext Error: Catalog write-write conflict on create with "s1"', "conflict"],
    ["Constraint Error: NOT NULL constraint failed: t.x", "constraint"],
    ['Parser Error: syntax error at or near "at"', "other"],
  ])("%s → %s", (message, kind) => expect(duckdbErrorKind(new Error(message))).toBe(kind));
});

describe("wrapping", () => {
  it("keeps the first line, the cause and the table", () => {
    const cause = new Error("Binder Error: no such column\n\nLINE 1: select ...\n        ^");
    const error = wrapDuckDBError(cause, "SL305", "writing raw.x failed", "raw.x");
    expect(error).toMatchObject({
      code: "SL305",
      message: "writing raw.x failed: Binder Error: no such column",
      table: "raw.x",
      cause,
    });
  });

  it("makes a write-write conflict retryable and keeps SqlloadErrors as they are", () => {
    expect(wrapDuckDBError(new Error("TransactionContext Error: Catalog write-write conflict"), "SL305", "x").retryable).toBe(
      true,
    );
    const own = new SqlloadError("SL302", "changed");
    expect(wrapDuckDBError(own, "SL305", "x")).toBe(own);
  });

  it("maps a held file to SL306 and a missing one to the given code", () => {
    expect(openError(new Error("IO Error: Could not set lock on file x"), "/p/w.duckdb", "SL305")).toMatchObject({
      code: "SL306",
      retryable: true,
    });
    expect(
      openError(new Error("IO Error: Cannot open database x in read-only mode: database does not exist"), "/p/s.duckdb", "SL304"),
    ).toMatchObject({
      code: "SL304",
      message: "the DuckDB file /p/s.duckdb does not exist",
    });
  });
});
