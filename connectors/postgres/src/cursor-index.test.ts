import { describe, expect, it } from "vitest";
import { catalogColumn } from "../test/pg-columns.js";
import { createCursorIndexSql, cursorIndexes } from "./cursor-index.js";
import { mapColumn } from "./postgres-dialect.js";

const ref = { schema: "raw", name: "events" };
const column = (typeName: string, collation: string | null) =>
  mapColumn(catalogColumn({ name: "code", declared: typeName, typeName, collation }));

describe("the index that serves a cursor", () => {
  it("is on the column itself for numbers, times, and text already in code point order", () => {
    expect(createCursorIndexSql(ref, column("timestamptz", null), "timestamp", false)).toBe(
      'CREATE INDEX ON "raw"."events" ("code");',
    );
    // A database whose default collation is C: the column's own order is code point order, and an
    // index in `COLLATE "C"` (another collation than "default") would serve none of its queries.
    expect(createCursorIndexSql(ref, column("text", "default"), "text", true)).toBe('CREATE INDEX ON "raw"."events" ("code");');
  });

  it('is in COLLATE "C" for text in another order, cast to text for types COLLATE does not apply to', () => {
    expect(createCursorIndexSql(ref, column("text", "und-x-icu"), "text", false)).toBe(
      'CREATE INDEX ON "raw"."events" ("code" COLLATE "C");',
    );
    expect(createCursorIndexSql(ref, column("citext", "default"), "text", false)).toBe(
      'CREATE INDEX ON "raw"."events" (("code"::text COLLATE "C"));',
    );
  });

  it("counts btrees only, and for text only those in the order the cursor compares by", () => {
    const indexes = [
      { name: "by_hash", collation: null, method: "hash", asText: false },
      { name: "by_icu", collation: "und-x-icu", method: "btree", asText: false },
      { name: "by_c", collation: "C", method: "btree", asText: false },
      { name: "by_default", collation: "default", method: "btree", asText: false },
      { name: "by_text_c", collation: "C", method: "btree", asText: true },
    ];
    const names = (found: { readonly usable: readonly { name: string }[] }) => found.usable.map((i) => i.name);
    expect(names(cursorIndexes(indexes, column("text", "und-x-icu"), "text", false))).toEqual(["by_c"]);
    expect(names(cursorIndexes(indexes, column("text", "default"), "text", true))).toEqual(["by_default"]);
    expect(names(cursorIndexes(indexes, column("int8", null), "integer", false))).toEqual(["by_icu", "by_c", "by_default"]);
    expect(cursorIndexes(indexes, column("int8", null), "integer", false).btrees).toHaveLength(3);
    // A text cursor COLLATE does not apply to is compared cast to text: only an index on that serves it.
    expect(names(cursorIndexes(indexes, column("citext", "default"), "text", false))).toEqual(["by_text_c"]);
  });
});
