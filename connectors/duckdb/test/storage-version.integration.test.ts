import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type Column, isSqlloadError, type RecordBatch } from "@sqlload/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../src/duckdb-database.js";
import { col, load, openTarget, t, tempProject } from "./harness.js";

let project: ReturnType<typeof tempProject>;
beforeAll(() => {
  project = tempProject();
});
afterAll(() => project?.cleanup());

const ref = { schema: "raw", name: "notes" };
const columns: Column[] = [col("id", t("int64")), col("body", t("text"))];

/** `rows` rows of about 1 KB of text, each distinct: what DuckDB's plain dictionary compression copies while it decides. */
function wideBatches(from: number, rows: number): RecordBatch[] {
  const out: RecordBatch[] = [];
  for (let start = from; start < from + rows; start += 2048) {
    const length = Math.min(2048, from + rows - start);
    const ids = new BigInt64Array(length);
    const bodies: string[] = new Array(length);
    for (let i = 0; i < length; i++) {
      ids[i] = BigInt(start + i);
      bodies[i] = createHash("md5")
        .update(String(start + i))
        .digest("hex")
        .repeat(32);
    }
    out.push({ schema: columns, length, columns: [{ values: ids }, { values: bodies }] });
  }
  return out;
}

async function loadInto(path: string, options: Record<string, unknown>, from: number, rows: number): Promise<void> {
  const target = await openTarget(project.dir, path, options);
  try {
    await load(target, ref, columns, wideBatches(from, rows));
  } finally {
    await target.close();
  }
}

/** The file's storage format, as DuckDB reports it, and the compressions of its text column. */
async function storageOf(path: string): Promise<{ version: string; compressions: string[] }> {
  const db = await openDatabase(path, project.dir, "read_only", "source");
  try {
    const connection = await db.connect();
    const catalog = String((await connection.runAndReadAll("SELECT current_database()")).getRows()[0]?.[0]);
    const version = await connection.runAndReadAll(
      `SELECT tags['storage_version'] FROM duckdb_databases() WHERE database_name = '${catalog}'`,
    );
    const compressions = await connection.runAndReadAll(
      "SELECT DISTINCT compression FROM pragma_storage_info('raw.notes') WHERE column_name = 'body' AND segment_type = 'VARCHAR' ORDER BY 1",
    );
    return { version: String(version.getRows()[0]?.[0]), compressions: compressions.getRows().map((row) => String(row[0])) };
  } finally {
    await db.release();
  }
}

/** The storage version number in a DuckDB file's header (after its checksum and `DUCK`): what older DuckDBs check. */
const headerVersion = (path: string) => Number(readFileSync(join(project.dir, path)).readBigUInt64LE(12));

describe("the target's storage_version", () => {
  it("creates a file in DuckDB's own default format unless set, one DuckDB 0.10 and later open", async () => {
    await loadInto("default.duckdb", {}, 0, 10_000);
    const storage = await storageOf("default.duckdb");
    expect(storage.version).toBe("v1.0.0+");
    // DuckDB picks FSST or none by what it samples; never the compression the older format lacks.
    expect(storage.compressions).not.toContain("DICT_FSST");
    expect(headerVersion("default.duckdb")).toBe(64);
  });

  it("creates a file in DuckDB 1.3's format when asked, whose text takes the compression that format added", async () => {
    await loadInto("new.duckdb", { storage_version: "v1.3.0" }, 0, 10_000);
    expect(await storageOf("new.duckdb")).toEqual({ version: "v1.3.0+", compressions: ["DICT_FSST"] });
    // DuckDB 1.3's number: DuckDB 1.2 and earlier refuse the file instead of misreading it.
    expect(headerVersion("new.duckdb")).toBe(66);
  });

  it("writes the format it is given, also to a file attached for its row group size", async () => {
    await loadInto("old.duckdb", { storage_version: "v0.10.0" }, 0, 10_000);
    const storage = await storageOf("old.duckdb");
    expect(storage.version).toBe("v1.0.0+");
    expect(storage.compressions).not.toContain("DICT_FSST");
    expect(headerVersion("old.duckdb")).toBe(64);
    await loadInto("attached.duckdb", { storage_version: "v1.3.0", row_group_size: 4096 }, 0, 10_000);
    expect((await storageOf("attached.duckdb")).version).toBe("v1.3.0+");
  });

  it("leaves a file that exists in the format it has", async () => {
    await loadInto("kept.duckdb", { storage_version: "v1.3.0" }, 0, 5_000);
    await loadInto("kept.duckdb", {}, 5_000, 5_000);
    await loadInto("kept.duckdb", { storage_version: "v0.10.0" }, 10_000, 5_000);
    expect((await storageOf("kept.duckdb")).version).toBe("v1.3.0+");
    expect(headerVersion("kept.duckdb")).toBe(66);
  });

  it("refuses a value that is not a version, or one this DuckDB does not know, naming the key, and creates nothing", async () => {
    for (const [value, code] of [
      ["1.3", "SL107"],
      ["newest", "SL107"],
      ["v9.9.9", "SL107"],
      [13, "SL103"],
    ] as const) {
      const error = await openTarget(project.dir, "never.duckdb", { storage_version: value }).catch((e: unknown) => e);
      expect(isSqlloadError(error) && error.code).toBe(code);
      expect((error as Error).message).toContain("storage_version");
    }
    expect(existsSync(join(project.dir, "never.duckdb"))).toBe(false);
  });
});
