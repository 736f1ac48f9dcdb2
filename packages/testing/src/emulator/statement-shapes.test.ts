import { describe, expect, it } from "vitest";
import { matchStatement, type StatementShape, splitStatements } from "./statement-shapes.js";

describe("splitStatements", () => {
  it("splits at top-level semicolons only", () => {
    const script = "BEGIN TRANSACTION; INSERT INTO `a;b` VALUES ('x;y', \"q;\") ; -- c;d\nCOMMIT TRANSACTION;";
    expect(splitStatements(script)).toEqual([
      "BEGIN TRANSACTION",
      "INSERT INTO `a;b` VALUES ('x;y', \"q;\")",
      "-- c;d\nCOMMIT TRANSACTION",
    ]);
  });

  it("keeps escaped and doubled quotes inside their literal", () => {
    expect(splitStatements("SELECT 'it''s; fine'; SELECT 'a\\'; b'")).toEqual(["SELECT 'it''s; fine'", "SELECT 'a\\'; b'"]);
  });

  it("keeps a BEGIN ATOMIC … END block whole when asked", () => {
    const script = "BEGIN ATOMIC DELETE FROM t WHERE x = 1; INSERT INTO t VALUES (1); END; SELECT 1";
    expect(splitStatements(script, { blockKeywords: true })).toEqual([
      "BEGIN ATOMIC DELETE FROM t WHERE x = 1; INSERT INTO t VALUES (1); END",
      "SELECT 1",
    ]);
  });

  it("refuses an unterminated literal rather than guessing", () => {
    expect(() => splitStatements("SELECT 'oops")).toThrow(/unterminated/);
  });
});

describe("matchStatement", () => {
  const shapes: StatementShape<void>[] = [
    { name: "begin", kind: "transaction", pattern: /^BEGIN TRANSACTION$/i, translate: () => ({ action: "begin" }) },
    {
      name: "drop",
      kind: "ddl",
      pattern: /^DROP TABLE IF EXISTS `([^`]+)`$/i,
      translate: (m) => ({ sql: [`DROP TABLE IF EXISTS "${m[1]}"`] }),
    },
  ];

  it("finds the shape and folds a trailing semicolon", () => {
    const matched = matchStatement(shapes, "  DROP TABLE IF EXISTS `x`; ");
    expect(matched.shape.name).toBe("drop");
    expect(matched.shape.translate(matched.match)).toEqual({ sql: ['DROP TABLE IF EXISTS "x"'] });
  });

  it("rejects every statement no shape knows", () => {
    expect(() => matchStatement(shapes, "DROP SCHEMA x CASCADE")).toThrow(
      /does not understand this statement: DROP SCHEMA x CASCADE/,
    );
  });
});
