import {
  batchToRows,
  type CursorValue,
  compareCodePoints,
  cursorAt,
  isSqlloadError,
  type SourceConnection,
  type SourceItem,
  type TargetConnection,
} from "@sqlload/core";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PostgresTableReader } from "../src/postgres-reader.js";
import {
  batchesOf,
  collect,
  copyTable,
  int,
  openSource,
  openTarget,
  readRequest,
  rows,
  type Server,
  startServer,
  tableRequest,
  text,
  ts,
} from "./harness.js";

let server: Server;
let sql: pg.Pool;
let url: string;
let source: SourceConnection;
let target: TargetConnection;

beforeAll(async () => {
  server = await startServer();
  const db = await server.database("source");
  sql = db.sql;
  url = db.url;
  source = await openSource(url);
  target = await openTarget(url);
});

afterAll(async () => {
  await source?.close();
  await target?.close();
  await server?.stop();
});

/** Reads a range of a table and returns its rows as objects. */
async function readRange(
  key: string,
  cursor: string,
  range: { from?: CursorValue; fromInclusive?: boolean; to?: CursorValue },
  options: { includeNulls?: boolean; ordered?: boolean; columns?: string[] } = {},
) {
  const request = tableRequest(key, cursor, options.columns);
  const reader = await source.openTable(request, await source.describeTable(request));
  try {
    const items = await collect(
      reader.read(readRequest({ range, includeNulls: options.includeNulls ?? false, ordered: options.ordered ?? true })),
    );
    return batchesOf(items).flatMap(batchToRows);
  } finally {
    await reader.close();
  }
}

describe("describeTable", () => {
  beforeAll(async () => {
    await sql.query(`
      CREATE TABLE orders (id bigint PRIMARY KEY, code text NOT NULL, ref text COLLATE "C", updated_at timestamptz, amount numeric(12,2), token uuid);
      CREATE INDEX orders_code ON orders (code);
      CREATE INDEX orders_ref ON orders (ref);
      CREATE INDEX orders_updated ON orders (updated_at);`);
  });

  it("gives columns, the cursor's kind and nullability, and the snapshot note", async () => {
    const info = await source.describeTable(tableRequest("public.orders", "updated_at"));
    expect(info.columns?.map((c) => [c.name, c.type.kind, c.nullable])).toEqual([
      ["id", "int64", false],
      ["code", "text", false],
      ["ref", "text", true],
      ["updated_at", "timestamptz", true],
      ["amount", "decimal", true],
      ["token", "uuid", true],
    ]);
    expect(info.cursorKind).toBe("timestamp");
    expect(info.cursorNullable).toBe(true);
    expect(info.cursorIndexed).toBe(true);
    expect(info.notes).toEqual([]);
    expect(info.windowNotes).toEqual([
      "windows are read in one REPEATABLE READ snapshot, held open on the source for the whole table load (mind idle_in_transaction_session_timeout and vacuum)",
    ]);
  });

  it("says a text cursor's index in another collation will not be used, and prints the index to create", async () => {
    const info = await source.describeTable(tableRequest("public.orders", "code"));
    expect(info.cursorKind).toBe("text");
    expect(info.cursorIndexed).toBe(false);
    const note = info.notes?.find((n) => n.includes("will not be used"));
    expect(note).toContain('"orders_code"');
    expect(note).toContain('CREATE INDEX ON "public"."orders" ("code" COLLATE "C");');
  });

  it('uses an index of a column collated "C" as it is', async () => {
    const info = await source.describeTable(tableRequest("public.orders", "ref"));
    expect(info.cursorIndexed).toBe(true);
    expect(info.notes).toEqual([]);
  });

  it('counts an index created with COLLATE "C" as leading with the cursor', async () => {
    await sql.query(`CREATE INDEX orders_code_c ON orders (code COLLATE "C")`);
    const info = await source.describeTable(tableRequest("public.orders", "code"));
    expect(info.cursorIndexed).toBe(true);
    await sql.query("DROP INDEX orders_code_c");
  });

  it("counts the index its note prints for a text cursor of a type COLLATE does not apply to (citext)", async () => {
    const available = await sql.query("SELECT 1 FROM pg_available_extensions WHERE name = 'citext'");
    // citext ships with Postgres (contrib); where it is not installed there is nothing to check.
    if (available.rowCount === 0) return;
    await sql.query(`CREATE EXTENSION IF NOT EXISTS citext;
      CREATE TABLE tags (code citext, n int4); CREATE INDEX tags_code ON tags (code);`);
    const before = await source.describeTable(tableRequest("public.tags", "code"));
    expect(before.cursorIndexed).toBe(false);
    const create = 'CREATE INDEX ON "public"."tags" (("code"::text COLLATE "C"));';
    expect(before.notes?.[0]).toContain(create);
    await sql.query(create);
    const after = await source.describeTable(tableRequest("public.tags", "code"));
    expect(after.cursorIndexed).toBe(true);
    expect(after.notes).toEqual([]);
    // The index is on what the read compares: a cast of another column to text does not count.
    await sql.query(`CREATE TABLE tags2 (code citext, other citext); CREATE INDEX ON tags2 ((other::text COLLATE "C"));`);
    expect((await source.describeTable(tableRequest("public.tags2", "code"))).cursorIndexed).toBe(false);
  });

  it("suggests an index when none leads with the cursor", async () => {
    const info = await source.describeTable(tableRequest("public.orders", "id", ["id", "amount"]));
    expect(info.cursorIndexed).toBe(true);
    await sql.query("CREATE TABLE plain (n int4)");
    const plain = await source.describeTable(tableRequest("public.plain", "n"));
    expect(plain.cursorIndexed).toBe(false);
    expect(plain.notes?.[0]).toContain('CREATE INDEX ON "public"."plain" ("n");');
  });

  it("refuses a missing table (SL206), cursor column (SL200), column (SL209) and a cursor type (SL201)", async () => {
    const codeOf = async (p: Promise<unknown>) =>
      p.then(
        () => "resolved",
        (e) => (isSqlloadError(e) ? e.code : String(e)),
      );
    expect(await codeOf(source.describeTable(tableRequest("public.nope")))).toBe("SL206");
    expect(await codeOf(source.describeTable(tableRequest("public.orders", "nope")))).toBe("SL200");
    expect(await codeOf(source.describeTable(tableRequest("public.orders", undefined, ["id", "nope"])))).toBe("SL209");
    expect(await codeOf(source.describeTable(tableRequest("public.orders", "token")))).toBe("SL201");
    expect(await codeOf(source.describeTable(tableRequest("public.orders", "amount")))).toBe("SL201");
  });
});

describe("cursor ranges", () => {
  const big = 2n ** 53n;
  beforeAll(async () => {
    await sql.query(`CREATE TABLE big (id int8 PRIMARY KEY, note text)`);
    await sql.query(`INSERT INTO big VALUES ($1, 'a'), ($2, 'b'), ($3, 'c'), ($4, 'max'), (-9223372036854775808, 'min')`, [
      big.toString(),
      (big + 1n).toString(),
      (big + 2n).toString(),
      "9223372036854775807",
    ]);
    await sql.query(`CREATE TABLE micro (id int4, at timestamptz, local timestamp, day date)`);
    await sql.query(`INSERT INTO micro VALUES
      (1, '2026-10-12 16:00:00+00', '2026-10-12 16:00:00', '2026-10-11'),
      (2, '2026-10-12 16:00:00.000001+00', '2026-10-12 16:00:00.000001', '2026-10-12'),
      (3, '2026-10-12 16:00:00.000002+00', '2026-10-12 16:00:00.000002', '2026-10-13'),
      (4, NULL, NULL, NULL)`);
  });

  it("reads bigint ranges beyond 2^53 exactly, half-open", async () => {
    const got = await readRange("public.big", "id", { from: int(big + 1n), to: int(big + 2n) });
    expect(got).toEqual([{ id: big + 1n, note: "b" }]);
    const after = await readRange("public.big", "id", { from: int(big + 1n), fromInclusive: false });
    expect(after.map((r) => r.id)).toEqual([big + 2n, 2n ** 63n - 1n]);
  });

  it("answers maxCursor and firstCursorAtOrAfter exactly", async () => {
    const request = tableRequest("public.big", "id");
    const reader = await source.openTable(request, await source.describeTable(request));
    try {
      expect(await reader.maxCursor?.()).toEqual(int(2n ** 63n - 1n));
      expect(await reader.firstCursorAtOrAfter?.(int(big + 1n))).toEqual(int(big + 1n));
      expect(await reader.firstCursorAtOrAfter?.(int(big + 3n))).toEqual(int(2n ** 63n - 1n));
      expect(await reader.firstCursorAtOrAfter?.(int(2n ** 63n - 1n))).toEqual(int(2n ** 63n - 1n));
    } finally {
      await reader.close();
    }
  });

  it("reads microsecond boundaries exactly for timestamptz and timestamp", async () => {
    const t0 = 1791820800000000n; // 2026-10-12 16:00:00 UTC
    for (const column of ["at", "local"]) {
      const got = await readRange("public.micro", column, { from: ts(t0 + 1n), to: ts(t0 + 2n) });
      expect(got.map((r) => r.id)).toEqual([2]);
      const after = await readRange("public.micro", column, { from: ts(t0), fromInclusive: false });
      expect(after.map((r) => r.id)).toEqual([2, 3]);
    }
    const request = tableRequest("public.micro", "at");
    const reader = await source.openTable(request, await source.describeTable(request));
    expect(await reader.maxCursor?.()).toEqual(ts(t0 + 2n));
    expect(await reader.firstCursorAtOrAfter?.(ts(t0 + 1n))).toEqual(ts(t0 + 1n));
    await reader.close();
  });

  it("reads date ranges, and NULL cursors only when asked", async () => {
    const day = (s: string): CursorValue => ({ kind: "date", value: Date.parse(s) / 86_400_000 });
    expect((await readRange("public.micro", "day", { from: day("2026-10-12"), to: day("2026-10-13") })).map((r) => r.id)).toEqual(
      [2],
    );
    expect((await readRange("public.micro", "day", {})).map((r) => r.id)).toEqual([1, 2, 3]);
    expect((await readRange("public.micro", "day", {}, { includeNulls: true })).map((r) => r.id)).toEqual([4, 1, 2, 3]);
    expect(
      (await readRange("public.micro", "day", { from: day("2026-10-12") }, { includeNulls: true })).map((r) => r.id),
    ).toEqual([4, 2, 3]);
  });
});

describe("text cursors compare by code point", () => {
  // Under en-US ICU 'a9' < 'B1' and U+FFFD sorts after the emoji; by code point 'B1' < 'a9' < U+FFFD < U+1F600.
  const values = ["B1", "a9", "\uFFFD", "\u{1F600}", "b", "Z", "é", 'it\'s \\ "q"'];

  beforeAll(async () => {
    await sql.query(`CREATE TABLE words (id serial, word text COLLATE "en-US-x-icu")`);
    await sql.query(`CREATE INDEX words_word ON words (word)`);
    for (const v of values) await sql.query("INSERT INTO words (word) VALUES ($1)", [v]);
  });

  it("takes the maximum by code point, where the column's collation disagrees", async () => {
    const [icu] = await rows<{ m: string }>(sql, "SELECT max(word) AS m FROM words");
    const byCodePoint = [...values].sort(compareCodePoints).at(-1);
    expect(byCodePoint).toBe("\u{1F600}");
    expect(icu?.m).not.toBe(byCodePoint);
    const request = tableRequest("public.words", "word");
    const info = await source.describeTable(request);
    expect(info.cursorIndexed).toBe(false);
    const reader = await source.openTable(request, info);
    expect(await reader.maxCursor?.()).toEqual(text(byCodePoint as string));
    expect(await reader.firstCursorAtOrAfter?.(text("a"))).toEqual(text("a9"));
    await reader.close();
  });

  it("reads ranges and order by code point, with quotes and backslashes in the bounds", async () => {
    const all = await readRange("public.words", "word", {});
    expect(all.map((r) => r.word)).toEqual([...values].sort(compareCodePoints));
    const range = await readRange("public.words", "word", { from: text("B1"), to: text("a9") });
    expect(range.map((r) => r.word)).toEqual(["B1", "Z"]);
    const quoted = await readRange("public.words", "word", { from: text('it\'s \\ "q"'), to: text('it\'s \\ "q"!') });
    expect(quoted.map((r) => r.word)).toEqual(['it\'s \\ "q"']);
  });

  it("loads twice under append without a duplicate: the second run reads strictly after the target's maximum", async () => {
    const ref = { schema: "raw", name: "app__words" };
    await copyTable(source, target, tableRequest("public.words", "word"), ref, { read: { includeNulls: true } });
    const max = await target.maxCursor(ref, "word", "text");
    expect(max).toEqual(text("\u{1F600}"));
    // New rows: one after the maximum by code point, one that ICU would put after it but code points do not.
    await sql.query("INSERT INTO words (word) VALUES ($1), ($2)", ["\u{1F601}", "zzz"]);
    await copyTable(source, target, tableRequest("public.words", "word"), ref, {
      read: { range: { from: max as CursorValue, fromInclusive: false }, includeNulls: false },
    });
    const loaded = await rows<{ word: string; n: string }>(sql, "SELECT word, count(*) AS n FROM raw.app__words GROUP BY word");
    expect(loaded.every((r) => r.n === "1")).toBe(true);
    expect(loaded.map((r) => r.word).sort(compareCodePoints)).toEqual([...values, "\u{1F601}"].sort(compareCodePoints));
    // 'zzz' sorts before the maximum by code point: it is not part of an incremental read after it.
    expect(loaded.some((r) => r.word === "zzz")).toBe(false);
  });
});

describe("ordered reads", () => {
  beforeAll(async () => {
    // Runs of one cursor value cross batch boundaries (4096 rows), and NULLs come first.
    await sql.query(`CREATE TABLE runs (id serial, k int8)`);
    await sql.query(`INSERT INTO runs (k) SELECT CASE WHEN g <= 10 THEN NULL ELSE g / 3000 END FROM generate_series(1, 20000) g`);
  });

  it("yields commit points only between distinct cursor values, NULLs first", async () => {
    const request = tableRequest("public.runs", "k");
    const reader = await source.openTable(request, await source.describeTable(request));
    const items: SourceItem[] = await collect(reader.read(readRequest({ ordered: true, includeNulls: true })));
    await reader.close();
    const kIndex = 1;
    let previous: ReturnType<typeof cursorAt> | undefined;
    let points = 0;
    let pendingPoint = false;
    let total = 0;
    for (const item of items) {
      if (item.kind === "commit-point") {
        points++;
        pendingPoint = true;
        expect(item.bytesSinceLast).toBeGreaterThan(0);
        continue;
      }
      if (item.kind !== "batch") continue;
      const first = cursorAt(item.batch, kIndex, 0);
      if (pendingPoint) expect(first).not.toEqual(previous);
      pendingPoint = false;
      for (let r = 0; r < item.batch.length; r++) {
        const v = cursorAt(item.batch, kIndex, r);
        if (previous && v) expect(v.value >= previous.value).toBe(true);
        if (previous && !v) throw new Error("a NULL cursor after a value");
        previous = v;
      }
      total += item.batch.length;
    }
    expect(total).toBe(20_000);
    expect(points).toBeGreaterThan(0);
    expect(batchesOf(items)[0]?.columns[kIndex]?.nulls?.[0]).toBe(1);
  });
});

describe("what a full read moves, as the catalog's statistics reckon it", () => {
  it("counts the pages of the table, its children and partitions at any depth, TOAST four times", async () => {
    await sql.query(`
      CREATE TABLE sized (id int8, at timestamptz, doc text);
      INSERT INTO sized SELECT g, now(), repeat('x', 40) FROM generate_series(1, 20000) g;
      INSERT INTO sized SELECT g, now(), string_agg(md5((g * 1000 + k)::text), '') FROM generate_series(1, 20) g,
        generate_series(1, 400) k GROUP BY g;
      CREATE TABLE sized_child (extra int) INHERITS (sized);
      INSERT INTO sized_child SELECT g, now(), 'c', 1 FROM generate_series(1, 5000) g;
      CREATE TABLE parted (id int8, at timestamptz) PARTITION BY RANGE (id);
      CREATE TABLE parted_a PARTITION OF parted FOR VALUES FROM (0) TO (1000);
      CREATE TABLE parted_b PARTITION OF parted FOR VALUES FROM (1000) TO (MAXVALUE);
      INSERT INTO parted SELECT g, now() FROM generate_series(1, 30000) g;`);
    const describe = async (key: string) => source.describeTable(tableRequest(key, "at"));
    const n = async (sqlText: string) => Number((await sql.query(`SELECT (${sqlText})::int8 AS n`)).rows[0].n);
    // Never vacuumed or analyzed, a table has no page count yet: it counts as empty (the read's own
    // count corrects that); so do partitions made ahead of time, beside others that hold rows.
    expect((await describe("public.sized")).fullReadBytes).toBe(0);
    expect((await describe("public.parted")).fullReadBytes).toBe(0);
    await sql.query(`
      CREATE TABLE nested (id int8, at timestamptz) PARTITION BY RANGE (id);
      CREATE TABLE nested_a PARTITION OF nested FOR VALUES FROM (0) TO (20000) PARTITION BY RANGE (id);
      CREATE TABLE nested_a1 PARTITION OF nested_a FOR VALUES FROM (0) TO (10000);
      CREATE TABLE nested_a2 PARTITION OF nested_a FOR VALUES FROM (10000) TO (20000);
      CREATE TABLE nested_later PARTITION OF nested FOR VALUES FROM (20000) TO (MAXVALUE);
      INSERT INTO nested SELECT g, now() FROM generate_series(1, 19999) g;`);
    await sql.query("ANALYZE nested_a1");
    await sql.query("ANALYZE nested_a2");
    expect((await describe("public.nested")).fullReadBytes).toBe(
      await n("pg_relation_size('nested_a1') + pg_relation_size('nested_a2')"),
    );
    // VACUUM counts the TOAST table's pages too (ANALYZE alone leaves them out, and the read is
    // counted as it goes anyway).
    for (const table of ["sized", "sized_child", "parted"]) await sql.query(`VACUUM ANALYZE ${table}`);
    const toast = (table: string) => `(SELECT pg_relation_size(reltoastrelid) FROM pg_class WHERE oid = '${table}'::regclass)`;
    expect(await n(toast("sized"))).toBeGreaterThan(0);
    expect((await describe("public.sized")).fullReadBytes).toBe(
      await n(
        `pg_relation_size('sized') + pg_relation_size('sized_child') + 4 * ${toast("sized")} + 4 * ${toast("sized_child")}`,
      ),
    );
    const parted = await describe("public.parted");
    expect(parted.fullReadBytes).toBe(await n("pg_relation_size('parted_a') + pg_relation_size('parted_b')"));
    expect(parted.fullReadBytes).toBeGreaterThan(0);
    // The catalog is read without locking the table: an ALTER TABLE in flight does not hold it up.
    const holder = await sql.connect();
    try {
      await holder.query("BEGIN; LOCK TABLE sized IN ACCESS EXCLUSIVE MODE");
      const info = await Promise.race([
        describe("public.sized"),
        new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 5000)),
      ]);
      expect(info?.fullReadBytes).toBeGreaterThan(0);
    } finally {
      await holder.query("ROLLBACK");
      holder.release();
    }
    // A part kept elsewhere (a foreign table) has no pages here: the whole is not said to be small.
    await sql.query(`
      CREATE FOREIGN DATA WRAPPER sized_nowhere; CREATE SERVER sized_far FOREIGN DATA WRAPPER sized_nowhere;
      CREATE FOREIGN TABLE parted_far (id int8, at timestamptz) SERVER sized_far;
      ALTER TABLE parted DETACH PARTITION parted_b;
      ALTER TABLE parted ATTACH PARTITION parted_far FOR VALUES FROM (1000) TO (MAXVALUE);`);
    expect((await describe("public.parted")).fullReadBytes).toBeUndefined();
    await sql.query("CREATE VIEW sized_view AS SELECT * FROM sized");
    expect((await describe("public.sized_view")).fullReadBytes).toBeUndefined();
  });

  it("gives every batch of an unordered read its bytes on the wire", async () => {
    const request = tableRequest("public.runs", "k");
    const reader = await source.openTable(request, await source.describeTable(request));
    const items: SourceItem[] = await collect(reader.read(readRequest({ ordered: false, includeNulls: true })));
    await reader.close();
    const batches = items.filter((i) => i.kind === "batch");
    expect(batches.length).toBeGreaterThan(1);
    for (const item of batches) expect(item.bytes).toBeGreaterThan(item.batch.length * 2);
  });
});

describe("ordered reads use the cursor's index", () => {
  it("reads NULLs with a statement of their own, so the values come from the index without a sort", async () => {
    await sql.query(`CREATE TABLE indexed (id serial, at timestamptz, code text)`);
    await sql.query(`CREATE INDEX ON indexed (at)`);
    await sql.query(`CREATE INDEX ON indexed (code COLLATE "C")`);
    await sql.query(`INSERT INTO indexed (at, code) SELECT now() - g * interval '1 s', g::text FROM generate_series(1, 1000) g`);
    await sql.query(`INSERT INTO indexed (at, code) VALUES (NULL, NULL)`);
    for (const [column, kind] of [
      ["at", "timestamp"],
      ["code", "text"],
    ] as const) {
      const request = tableRequest("public.indexed", column);
      const reader = (await source.openTable(request, await source.describeTable(request))) as PostgresTableReader;
      const from: CursorValue = kind === "text" ? text("5") : ts(0n);
      const statements = reader.copyStatements({ range: { from }, includeNulls: true, ordered: true });
      expect(statements).toHaveLength(2);
      expect(statements[0]).toContain("IS NULL");
      const client = await sql.connect();
      try {
        // Tiny tables favour other plans; the question is only whether the index can give the order.
        await client.query("SET enable_seqscan = off; SET enable_bitmapscan = off");
        const inner = (statements[1] as string).replace(/^COPY \((.*)\) TO STDOUT \(FORMAT binary\)$/s, "$1");
        const plan = (await client.query(`EXPLAIN ${inner}`)).rows.map((r) => r["QUERY PLAN"]).join("\n");
        expect(plan, plan).toMatch(/Index Scan/);
        expect(plan).not.toMatch(/Sort/);
      } finally {
        client.release();
      }
      const all = batchesOf(await collect(reader.read(readRequest({ ordered: true, includeNulls: true })))).flatMap(batchToRows);
      expect(all[0]?.[column]).toBeNull();
      expect(all).toHaveLength(1001);
      await reader.close();
    }
  });
});

describe("a read of every row", () => {
  /** The statements a read of `key` runs, and the rows it gives, sorted by id. */
  async function readAll(key: string, cursor: string | undefined, request: Parameters<typeof readRequest>[0] = {}) {
    const table = tableRequest(key, cursor);
    const reader = (await source.openTable(table, await source.describeTable(table))) as PostgresTableReader;
    try {
      const statements = reader.copyStatements(readRequest(request));
      const read = batchesOf(await collect(reader.read(readRequest(request)))).flatMap(batchToRows);
      return { statements, ids: read.map((r) => Number(r.id)).sort((a, b) => a - b) };
    } finally {
      await reader.close();
    }
  }
  const asTable = /^COPY "public"\."\w+" \(.*\) TO STDOUT \(FORMAT binary\)$/;

  it("copies a table nothing inherits from as a table, without a query", async () => {
    await sql.query(`CREATE TABLE whole (id int, at timestamptz, note text)`);
    await sql.query(`INSERT INTO whole VALUES (1, now(), 'a'), (2, NULL, 'b'), (3, now(), NULL)`);
    for (const cursor of [undefined, "at"]) {
      const { statements, ids } = await readAll("public.whole", cursor);
      expect(statements).toEqual([`COPY "public"."whole" ("id", "at", "note") TO STDOUT (FORMAT binary)`]);
      expect(ids).toEqual([1, 2, 3]);
    }
  });

  it("reads through a query whatever a table copy would miss or not filter", async () => {
    await sql.query(`
      CREATE TABLE heir_parent (id int, at timestamptz);
      CREATE TABLE heir_child (extra int) INHERITS (heir_parent);
      INSERT INTO heir_parent VALUES (1, now());
      INSERT INTO heir_child VALUES (2, now(), 0);
      CREATE TABLE whole_parted (id int, at timestamptz) PARTITION BY RANGE (id);
      CREATE TABLE whole_parted_1 PARTITION OF whole_parted FOR VALUES FROM (0) TO (10);
      INSERT INTO whole_parted VALUES (1, now()), (2, now());
      CREATE VIEW whole_seen AS SELECT * FROM whole;
      CREATE TABLE whole_shapes (id int, at timestamptz, p point);
      INSERT INTO whole_shapes VALUES (1, now(), point(1, 2)), (2, now(), NULL);`);
    // COPY of a table leaves out the tables inheriting from it; a partitioned table, a view and a
    // column read as text cannot be copied as a table.
    for (const key of ["public.heir_parent", "public.whole_parted", "public.whole_seen", "public.whole_shapes"]) {
      const { statements, ids } = await readAll(key, "at");
      expect(statements[0], key).toMatch(/^COPY \(SELECT /);
      expect(ids, key).toEqual(key === "public.whole_seen" ? [1, 2, 3] : [1, 2]);
    }
    // Rows without a cursor left out, a range, cursor order: each needs the query.
    for (const request of [{ includeNulls: false }, { range: { from: ts(0n) } }, { ordered: true }]) {
      const { statements } = await readAll("public.whole", "at", request);
      expect(
        statements.every((s) => !asTable.test(s)),
        Object.keys(request)[0],
      ).toBe(true);
    }
    expect((await readAll("public.whole", "at", { includeNulls: false })).ids).toEqual([1, 3]);
  });
});

describe("snapshots, empty tables, odd names, failures", () => {
  it("reads every window of an opened table in one snapshot", async () => {
    await sql.query(`CREATE TABLE snap (id int4 PRIMARY KEY)`);
    await sql.query(`INSERT INTO snap SELECT generate_series(1, 10)`);
    const request = tableRequest("public.snap", "id");
    const reader = await source.openTable(request, await source.describeTable(request));
    const first = batchesOf(await collect(reader.read(readRequest({ range: { to: int(6n) } })))).flatMap(batchToRows);
    await sql.query(`INSERT INTO snap SELECT generate_series(11, 20)`);
    await sql.query(`DELETE FROM snap WHERE id = 8`);
    const second = batchesOf(await collect(reader.read(readRequest({ range: { from: int(6n) } })))).flatMap(batchToRows);
    expect(await reader.maxCursor?.()).toEqual(int(10n));
    await reader.close();
    expect([...first, ...second].map((r) => r.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it("refuses another question of the snapshot while a read is being consumed, instead of waiting forever", async () => {
    const request = tableRequest("public.snap", "id");
    const reader = await source.openTable(request, await source.describeTable(request));
    const errors: unknown[] = [];
    try {
      for await (const item of reader.read(readRequest())) {
        if (item.kind === "batch") errors.push(await reader.maxCursor?.().catch((e) => e));
      }
      expect(errors.map((e) => isSqlloadError(e) && e.code)).toEqual(["SL900"]);
      expect(await reader.maxCursor?.()).toEqual(int(20n));
    } finally {
      await reader.close();
    }
  });

  it("reads a table with no rows", async () => {
    await sql.query(`CREATE TABLE empty (id int8, at timestamptz)`);
    const request = tableRequest("public.empty", "at");
    const reader = await source.openTable(request, await source.describeTable(request));
    expect(await collect(reader.read(readRequest({ ordered: true })))).toEqual([]);
    expect(await reader.maxCursor?.()).toBeNull();
    expect(await reader.firstCursorAtOrAfter?.(ts(0n))).toBeNull();
    await reader.close();
    const ref = { schema: "raw", name: "app__empty" };
    const { rows: count } = await copyTable(source, target, request, ref);
    expect(count).toBe(0);
    expect(await target.maxCursor(ref, "at", "timestamp")).toBeNull();
  });

  it("handles schema, table and column names with quotes, spaces and unicode", async () => {
    await sql.query(`CREATE SCHEMA "Odd ""Schema"""`);
    await sql.query(`CREATE TABLE "Odd ""Schema"""."Tä ble ""x""" ("Cur sor ""c""" int8, "naïve 名前" text)`);
    await sql.query(`INSERT INTO "Odd ""Schema"""."Tä ble ""x""" VALUES (1, 'one'), (2, 'two'), (3, 'three')`);
    const key = `"Odd ""Schema"""."Tä ble ""x"""`;
    const got = await readRange(key, 'Cur sor "c"', { from: int(2n) });
    expect(got).toEqual([
      { 'Cur sor "c"': 2n, "naïve 名前": "two" },
      { 'Cur sor "c"': 3n, "naïve 名前": "three" },
    ]);
    const ref = { schema: 'ra"w 2', name: 'app__Tä ble "x"' };
    const { rows: count } = await copyTable(source, target, tableRequest(key, 'Cur sor "c"'), ref);
    expect(count).toBe(3);
    expect(await target.maxCursor(ref, 'Cur sor "c"', "integer")).toEqual(int(3n));
  });

  it("stops a read when its signal aborts (SL307), and the snapshot is gone after", async () => {
    await sql.query(`CREATE TABLE long (id int8)`);
    await sql.query(`INSERT INTO long SELECT generate_series(1, 100000)`);
    const request = tableRequest("public.long", "id");
    const reader = await source.openTable(request, await source.describeTable(request));
    const controller = new AbortController();
    let seen = 0;
    const error = await (async () => {
      for await (const item of reader.read(readRequest({ signal: controller.signal }))) {
        if (item.kind === "batch") seen += item.batch.length;
        controller.abort();
      }
    })().catch((e) => e);
    expect(isSqlloadError(error) && error.code).toBe("SL307");
    expect(seen).toBeLessThan(100_000);
    const next = await collect(reader.read(readRequest())).catch((e) => e);
    expect(isSqlloadError(next) && next.code).toBe("SL304");
    await reader.close();
    // The pool is still healthy afterwards.
    expect((await source.describeTable(request)).cursorKind).toBe("integer");
  });

  it("reports a refused connection as retryable", async () => {
    const dead = await openSource("postgresql://postgres:secret@127.0.0.1:1/nowhere");
    const error = await dead.describeTable(tableRequest("public.orders")).catch((e) => e);
    expect(isSqlloadError(error) && error.code).toBe("SL304");
    expect(error.retryable).toBe(true);
    expect(error.message).not.toContain("secret");
    expect(error.message).toContain("postgresql://postgres:***@127.0.0.1:1/nowhere");
    await dead.close();
  });
});
