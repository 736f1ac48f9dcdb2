import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { withUtf8 } from "@sqlload/conformance";
import { type Column, type LogicalType, type RecordBatch, SqlloadError } from "@sqlload/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { batch, col, load, openTarget, t, tempProject } from "./harness.js";

// The appender writes whole columns in the memory layouts of DuckDB's C API (duckdb-column-copy.ts).
// These tests read every layout back through SQL, with no sqlload code on the read side, so a
// DuckDB upgrade that changes one fails here, loudly, instead of loading wrong values.

let project: ReturnType<typeof tempProject>;
beforeAll(() => {
  project = tempProject();
});
afterAll(() => project?.cleanup());

const dec = (precision: number, scale: number): LogicalType => ({ kind: "decimal", precision, scale });

async function readBack(file: string, sql: string): Promise<Record<string, unknown>[]> {
  const instance = await DuckDBInstance.create(join(project.dir, file), {
    autoinstall_known_extensions: "false",
    autoload_known_extensions: "false",
  });
  const connection = await instance.connect();
  try {
    return (await connection.runAndReadAll(sql)).getRowObjectsJS();
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

async function write(file: string, name: string, columns: Column[], rows: Record<string, unknown>[]): Promise<void> {
  await writeBatch(file, name, columns, batch(columns, rows));
}

async function writeBatch(file: string, name: string, columns: Column[], given: RecordBatch): Promise<void> {
  const target = await openTarget(project.dir, file);
  try {
    await load(target, { schema: "raw", name }, columns, [given]);
  } finally {
    await target.close();
  }
}

/**
 * `batch` as withUtf8 gives it (as the Postgres source does), with no strings behind its text and
 * json columns' UTF-8 bytes or its decimals' scaled integers: asking one of them for its values throws.
 */
function withoutStrings(batch: RecordBatch): RecordBatch {
  const given = withUtf8(batch);
  return {
    ...given,
    columns: given.columns.map((column, c) => {
      const { name, type } = batch.schema[c] as Column;
      if (type.kind !== "text" && type.kind !== "json" && type.kind !== "decimal") return column;
      return {
        get values(): never {
          throw new Error(`column ${name}'s strings were asked for`);
        },
        nulls: column.nulls,
        utf8: column.utf8,
        scaled: column.scaled,
      };
    }),
  };
}

describe("whole-column writes into DuckDB", () => {
  it("resolves the same native binding as @duckdb/node-api, at the version both are pinned to", () => {
    const here = createRequire(import.meta.url);
    const api = here.resolve("@duckdb/node-api");
    const fromApi = createRequire(api).resolve("@duckdb/node-bindings");
    expect(here.resolve("@duckdb/node-bindings")).toBe(fromApi);
    const pkg = JSON.parse(readFileSync(join(dirname(fromApi), "package.json"), "utf8")) as { version: string };
    const ours = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
      dependencies: Record<string, string>;
    };
    expect(ours.dependencies["@duckdb/node-bindings"]).toBe(pkg.version);
    expect(ours.dependencies["@duckdb/node-api"]).toBe(pkg.version);
  });

  it("writes text inline up to 12 bytes and through DuckDB beyond, astral and multi-byte at the boundary", async () => {
    const texts = [
      "",
      "a",
      "abcdefghijk", // 11 bytes
      "abcdefghijkl", // 12: the last inline length
      "abcdefghijklm", // 13: the first that is not
      "abcdefghijé", // 10 + 2 bytes = 12
      "abcdefghijké", // 11 + 2 = 13
      "😀😀😀", // 12 bytes in 6 UTF-16 units
      "😀😀😀a", // 13
      "é€😀", // 2 + 3 + 4 bytes
      "x".repeat(5000),
      "nul\u0000inside",
    ];
    const rows: Record<string, unknown>[] = [];
    // Past one data chunk (2048 rows), with NULLs on both sides of the boundary.
    for (let i = 0; i < 5000; i++)
      rows.push({ i: BigInt(i), s: i % 7 === 3 || i === 2047 || i === 2048 ? null : texts[i % texts.length] });
    await write("text.duckdb", "texts", [col("i", t("int64")), col("s", t("text"))], rows);
    const back = await readBack("text.duckdb", "SELECT i, s, octet_length(encode(s)) AS n FROM raw.texts ORDER BY i");
    expect(back.map((r) => r.s)).toEqual(rows.map((r) => r.s));
    expect(back.map((r) => r.n)).toEqual(rows.map((r) => (r.s === null ? null : BigInt(Buffer.byteLength(r.s as string)))));
    // Equality, grouping and prefix comparison read the slots word by word: the padding must be zero.
    const grouped = await readBack(
      "text.duckdb",
      "SELECT s, count(*) AS c FROM raw.texts WHERE s IN ('abcdefghijkl', 'a', '😀😀😀', '') GROUP BY s ORDER BY s",
    );
    const count = (s: string) => BigInt(rows.filter((r) => r.s === s).length);
    expect(grouped).toEqual(["", "a", "abcdefghijkl", "😀😀😀"].map((s) => ({ s, c: count(s) })));
  });

  it("writes text given as UTF-8 bytes from the bytes alone, never decoding it to strings", async () => {
    // A Postgres batch decodes a text column into strings only when asked for its values; the
    // write copies the bytes. Measuring batches by their strings once cost a fifth of a load.
    const columns = [col("i", t("int64")), col("s", t("text")), col("j", t("json"))];
    const texts = ["", "abcdefghijkl", "abcdefghijklm", "é€😀", "x".repeat(5000), null];
    const rows = texts.flatMap((s, k) =>
      Array.from({ length: 700 }, (_, n) => ({ i: BigInt(k * 700 + n), s, j: s === null ? null : JSON.stringify(s) })),
    );
    await writeBatch("bytes.duckdb", "texts", columns, withoutStrings(batch(columns, rows)));
    const back = await readBack("bytes.duckdb", "SELECT s, j::VARCHAR AS j FROM raw.texts ORDER BY i");
    expect(back).toEqual(rows.map((r) => ({ s: r.s, j: r.j })));
  });

  it("writes decimals in each of DuckDB's four integer widths, exactly, with NULLs", async () => {
    const columns = [
      col("d4", dec(4, 1)),
      col("d9", dec(9, 3)),
      col("d12", dec(12, 2)),
      col("d18", dec(18, 4)),
      col("d38", dec(38, 10)),
    ];
    const rows = [
      {
        d4: "999.9",
        d9: "999999.999",
        d12: "9999999999.99",
        d18: "99999999999999.9999",
        d38: "9999999999999999999999999999.9999999999",
      },
      {
        d4: "-999.9",
        d9: "-999999.999",
        d12: "-9999999999.99",
        d18: "-99999999999999.9999",
        d38: "-9999999999999999999999999999.9999999999",
      },
      { d4: "0", d9: "-0.001", d12: "0.01", d18: "-0.0001", d38: "0.0000000001" },
      { d4: "1.50", d9: "12", d12: "00012.30", d18: "4294967296.0001", d38: "-18446744073709551616.5" },
      { d4: null, d9: null, d12: null, d18: null, d38: null },
      { d4: "-1", d9: "214748.364", d12: "-4294967296.01", d18: "9007199254740.993", d38: "1" },
    ];
    await write("decimal.duckdb", "decimals", columns, rows);
    const back = await readBack(
      "decimal.duckdb",
      "SELECT d4::VARCHAR AS d4, d9::VARCHAR AS d9, d12::VARCHAR AS d12, d18::VARCHAR AS d18, d38::VARCHAR AS d38 FROM raw.decimals",
    );
    const canonical = (text: string | null, scale: number) => {
      if (text === null) return null;
      const negative = text.startsWith("-");
      const [whole = "", fraction = ""] = text.replace(/^[+-]/, "").split(".");
      const digits = `${BigInt(whole || "0")}${scale > 0 ? `.${fraction.padEnd(scale, "0").slice(0, scale)}` : ""}`;
      return negative && /[1-9]/.test(digits) ? `-${digits}` : digits;
    };
    const scales = { d4: 1, d9: 3, d12: 2, d18: 4, d38: 10 };
    expect(back).toEqual(
      rows.map((r) =>
        Object.fromEntries(Object.entries(scales).map(([k, s]) => [k, canonical(r[k as keyof typeof r] as string | null, s)])),
      ),
    );
  });

  it("refuses a decimal that would overflow or be rounded, naming row and column", async () => {
    const columns = [col("d", dec(5, 2))];
    for (const [value, reason] of [
      ["1000.00", /does not fit DECIMAL\(5,2\)/],
      ["1.005", /would be rounded/],
    ] as const) {
      const error = await write("refused.duckdb", "refused", columns, [{ d: "1.00" }, { d: value }]).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SqlloadError);
      expect((error as SqlloadError).code).toBe("SL300");
      expect((error as SqlloadError).message).toMatch(/row 2, column "d"/);
      expect((error as SqlloadError).message).toMatch(reason);
    }
  });

  it("writes decimals given as scaled integers at each of DuckDB's widths, never asking for their strings", async () => {
    const columns = [col("d4", dec(4, 1)), col("d9", dec(9, 3)), col("d18", dec(18, 4)), col("d38", dec(38, 10))];
    const texts = {
      d4: ["999.9", "-999.9", "0.0", "12.5"],
      d9: ["999999.999", "-0.001", "123.450", "0.000"],
      d18: ["99999999999.9999", "-99999999999.9999", "1.0000", "-0.0001"],
      d38: ["99999.9999999999", "-99999.9999999999", "0.0000000001", "-12.5000000000"],
    };
    const rows: Record<string, unknown>[] = [];
    // Past two data chunks, with NULLs at the chunk boundary.
    for (let i = 0; i < 4500; i++) {
      const row: Record<string, unknown> = {};
      for (const [name, list] of Object.entries(texts)) row[name] = i === 2047 || i === 2048 || i % 11 === 5 ? null : list[i % 4];
      rows.push(row);
    }
    const given = withoutStrings(batch(columns, rows));
    for (const [c, column] of columns.entries()) {
      expect(column.type.kind === "decimal" && given.columns[c]?.scaled?.(column.type.scale)).toBeTruthy();
    }
    await writeBatch("scaled.duckdb", "decimals", columns, given);
    const back = await readBack(
      "scaled.duckdb",
      "SELECT d4::VARCHAR AS d4, d9::VARCHAR AS d9, d18::VARCHAR AS d18, d38::VARCHAR AS d38 FROM raw.decimals",
    );
    expect(back).toEqual(rows);
  });

  it("refuses a scaled decimal that overflows its column, naming row and column", async () => {
    const columns = [col("d", dec(4, 1))];
    const given = withUtf8(batch(columns, [{ d: "1.0" }, { d: "1000.0" }]));
    const target = await openTarget(project.dir, "scaled-refused.duckdb");
    try {
      const error = await load(target, { schema: "raw", name: "refused" }, columns, [given]).catch((e: unknown) => e);
      expect((error as SqlloadError).code).toBe("SL300");
      expect((error as SqlloadError).message).toMatch(/row 2, column "d".*1000\.0 does not fit DECIMAL\(4,1\)/s);
    } finally {
      await target.close();
    }
  });

  it("copies fixed-width columns: bigints beyond 2^53, microsecond timestamps, dates, doubles, booleans", async () => {
    const columns = [
      col("i64", t("int64")),
      col("i32", t("int32")),
      col("f64", t("float64")),
      col("b", t("boolean")),
      col("dt", t("date")),
      col("tm", t("time")),
      col("ts", t("timestamp")),
      col("tz", t("timestamptz")),
    ];
    const rows = [
      {
        i64: 2n ** 53n + 1n,
        i32: -2147483648,
        f64: 0.1,
        b: true,
        dt: "1969-12-31",
        tm: "23:59:59.999999",
        ts: "1900-01-01T00:00:00.000001",
        tz: "2026-03-01T12:34:56.789012Z",
      },
      { i64: -(2n ** 63n), i32: 2147483647, f64: -1e308, b: false, dt: "9999-12-31", tm: "00:00:00", ts: null, tz: null },
      {
        i64: null,
        i32: null,
        f64: null,
        b: null,
        dt: null,
        tm: null,
        ts: "2262-04-11T23:47:16.854775",
        tz: "1970-01-01T00:00:00.000001Z",
      },
    ];
    await write("fixed.duckdb", "fixed", columns, rows);
    const back = await readBack(
      "fixed.duckdb",
      `SELECT i64::VARCHAR AS i64, i32, f64, b, dt::VARCHAR AS dt, tm::VARCHAR AS tm, strftime(ts, '%Y-%m-%dT%H:%M:%S.%f') AS ts,
              epoch_us(tz)::VARCHAR AS tz FROM raw.fixed`,
    );
    expect(back).toEqual([
      {
        i64: "9007199254740993",
        i32: -2147483648,
        f64: 0.1,
        b: true,
        dt: "1969-12-31",
        tm: "23:59:59.999999",
        ts: "1900-01-01T00:00:00.000001",
        tz: String(Date.UTC(2026, 2, 1, 12, 34, 56, 789) * 1000 + 12),
      },
      {
        i64: "-9223372036854775808",
        i32: 2147483647,
        f64: -1e308,
        b: false,
        dt: "9999-12-31",
        tm: "00:00:00",
        ts: null,
        tz: null,
      },
      { i64: null, i32: null, f64: null, b: null, dt: null, tm: null, ts: "2262-04-11T23:47:16.854775", tz: "1" },
    ]);
  });
  it("reuses one data chunk across chunks: NULLs, long text and value-by-value columns of one chunk never leak into the next", async () => {
    // 2048 rows make a chunk: the first chunk's column is all NULL or long text, the second's has
    // neither, so a mask or string left over from the reused chunk would show in the second.
    const columns = [col("n", t("int64")), col("s", t("text")), col("j", t("json"))];
    const rows = Array.from({ length: 2048 * 2 + 5 }, (_, i) =>
      i < 2048
        ? { n: i % 2 === 0 ? null : BigInt(i), s: i % 3 === 0 ? null : `long text of row ${i}, past twelve bytes`, j: null }
        : { n: BigInt(i), s: `r${i}`, j: `{"i":${i}}` },
    );
    await write("reuse.duckdb", "reuse", columns, rows);
    const back = await readBack(
      "reuse.duckdb",
      `SELECT count(*)::INTEGER AS rows, count(n)::INTEGER AS n, count(s)::INTEGER AS s, count(j)::INTEGER AS j,
              count(*) FILTER (WHERE s LIKE 'long%')::INTEGER AS long, sum(n)::VARCHAR AS total FROM raw.reuse`,
    );
    const expected = rows.reduce((sum, r) => sum + (r.n ?? 0n), 0n);
    expect(back).toEqual([
      {
        rows: rows.length,
        n: rows.filter((r) => r.n !== null).length,
        s: rows.filter((r) => r.s !== null).length,
        j: 2053,
        long: rows.filter((r) => r.s?.startsWith("long")).length,
        total: String(expected),
      },
    ]);
    const tail = await readBack(
      "reuse.duckdb",
      "SELECT n::VARCHAR AS n, s, j::VARCHAR AS j FROM raw.reuse WHERE n >= 2048 ORDER BY n LIMIT 2",
    );
    expect(tail).toEqual([
      { n: "2048", s: "r2048", j: '{"i":2048}' },
      { n: "2049", s: "r2049", j: '{"i":2049}' },
    ]);
  });
});
