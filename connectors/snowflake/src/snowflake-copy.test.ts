import { describe, expect, it } from "vitest";
import { checkCopy, checkPut, copySql, putSql, tableStage } from "./snowflake-copy.js";
import { CSV_FILE_FORMAT, csvRecord } from "./snowflake-csv.js";
import { DEFAULT_BULK_LOAD_ROWS, parseSnowflakeSettings } from "./snowflake-settings.js";

const stage = { schema: "raw schema", name: '_sqlload_stage_"x"' };

describe("the Snowflake bulk path's SQL and files", () => {
  it("encloses every value, doubling quotes, and leaves NULL the only empty unenclosed field", () => {
    expect(csvRecord(["a,b", "", null, 'say "hi"\nnext\r\nline', "𝄞", "\\N", " pad "])).toBe(
      '"a,b","",,"say ""hi""\nnext\r\nline","𝄞","\\N"," pad "\n',
    );
    expect(csvRecord([null, null])).toBe(",\n");
  });

  it("PUTs a gzip file to the stage's table stage, uncompressed by nobody, overwriting a retried half", () => {
    expect(tableStage(stage)).toBe('@"raw schema".%"_sqlload_stage_""x"""');
    expect(putSql("/tmp/sqlload-snowflake-1-a/t_1.csv.gz", stage)).toBe(
      `PUT 'file:///tmp/sqlload-snowflake-1-a/t_1.csv.gz' @"raw schema".%"_sqlload_stage_""x""" AUTO_COMPRESS = FALSE SOURCE_COMPRESSION = GZIP OVERWRITE = TRUE`,
    );
    expect(() => putSql("/tmp/it's/t.csv.gz", stage)).toThrow(/quote/);
  });

  it("COPYs the named files with the exact file format, aborting on any error and purging after", () => {
    const sql = copySql(stage, ["t_1.csv.gz", "t_2.csv.gz"]);
    expect(sql).toBe(
      `COPY INTO "raw schema"."_sqlload_stage_""x""" FROM @"raw schema".%"_sqlload_stage_""x""" FILES = ('t_1.csv.gz', 't_2.csv.gz') FILE_FORMAT = (${CSV_FILE_FORMAT}) ON_ERROR = ABORT_STATEMENT PURGE = TRUE`,
    );
    for (const option of ["EMPTY_FIELD_AS_NULL = TRUE", "NULL_IF = ()", "ESCAPE_UNENCLOSED_FIELD = NONE", "TRIM_SPACE = FALSE"])
      expect(CSV_FILE_FORMAT).toContain(option);
  });

  it("accepts a PUT only when its file was uploaded", () => {
    const row = { source: "t_1.csv.gz", target: "t_1.csv.gz", status: "UPLOADED", message: "" };
    expect(() => checkPut([row], "t_1.csv.gz")).not.toThrow();
    expect(() => checkPut([{ ...row, status: "SKIPPED" }], "t_1.csv.gz")).toThrow(/SKIPPED/);
    expect(() => checkPut([], "t_1.csv.gz")).toThrow(/without a result/);
  });

  it("counts the rows COPY loaded, and fails on a file not loaded or a COPY that processed none", () => {
    const loaded = (file: string, rows: string) => ({ file, status: "LOADED", rows_loaded: rows, first_error: null });
    expect(checkCopy([loaded("t_1.csv.gz", "3"), loaded("stage/t_2.csv.gz", "4")], ["t_1.csv.gz", "t_2.csv.gz"])).toBe(7);
    expect(() => checkCopy([loaded("t_1.csv.gz", "3")], ["t_1.csv.gz", "t_2.csv.gz"])).toThrow(/t_2/);
    expect(() =>
      checkCopy([{ file: "t_1.csv.gz", status: "LOAD_FAILED", rows_loaded: "0", first_error: "bad" }], ["t_1.csv.gz"]),
    ).toThrow(/LOAD_FAILED \(bad\)/);
    expect(() => checkCopy([{ status: "Copy executed with 0 files processed." }], ["t_1.csv.gz"])).toThrow(/0 files processed/);
  });

  it("reads the bulk threshold from [target], refusing what is not a whole number", () => {
    const base = { account: "a", user: "u", database: "d", password: "p" };
    expect(parseSnowflakeSettings(base, "/").bulkLoadRows).toBe(DEFAULT_BULK_LOAD_ROWS);
    expect(parseSnowflakeSettings({ ...base, bulk_load_rows: 0 }, "/").bulkLoadRows).toBe(0);
    expect(parseSnowflakeSettings({ ...base, bulk_load_rows: 5n }, "/").bulkLoadRows).toBe(5);
    expect(() => parseSnowflakeSettings({ ...base, bulk_load_rows: -1 }, "/")).toThrow(/bulk_load_rows/);
    expect(() => parseSnowflakeSettings({ ...base, bulk_load_rows: 1.5 }, "/")).toThrow(/bulk_load_rows/);
  });
});
