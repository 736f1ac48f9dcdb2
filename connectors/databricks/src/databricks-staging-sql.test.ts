import { describe, expect, it } from "vitest";
import { copyIntoSql, listSql, putSql, removeSql, stringLiteral } from "./databricks-staging-sql.js";
import { stagedFileName, tableFolder } from "./databricks-volume.js";

describe("the bulk path's SQL", () => {
  it("escapes literals with backslashes, as Databricks reads them", () => {
    expect(stringLiteral("/tmp/it's")).toBe("'/tmp/it\\'s'");
    expect(stringLiteral("C:\\Users\\a")).toBe("'C:\\\\Users\\\\a'");
  });

  it("builds the staging operations and COPY INTO", () => {
    expect(putSql("/tmp/x/a.parquet", "/Volumes/c/s/v/f/a.parquet")).toBe(
      "PUT '/tmp/x/a.parquet' INTO '/Volumes/c/s/v/f/a.parquet' OVERWRITE",
    );
    expect(removeSql("/Volumes/c/s/v/f/a.parquet")).toBe("REMOVE '/Volumes/c/s/v/f/a.parquet'");
    expect(listSql("/Volumes/c/s/v/f")).toBe("LIST '/Volumes/c/s/v/f/'");
    expect(copyIntoSql("`c`.`s`.`b`", "/Volumes/c/s/v/f", ["a.parquet", "b.parquet"])).toBe(
      "COPY INTO `c`.`s`.`b` FROM '/Volumes/c/s/v/f' FILEFORMAT = PARQUET FILES = ('a.parquet', 'b.parquet')",
    );
  });
});

describe("the volume layout", () => {
  it("gives each table a folder of safe characters, told apart by a hash of the exact names", () => {
    const a = tableFolder("/Volumes/c/s/v", { schema: "raw", name: "app__orders" });
    expect(a).toMatch(/^\/Volumes\/c\/s\/v\/_sqlload\/raw__app__orders-[0-9a-f]{12}$/);
    const odd = tableFolder("/Volumes/c/s/v", { schema: "raw", name: "it's ünï" });
    expect(odd).toMatch(/^\/Volumes\/c\/s\/v\/_sqlload\/raw__it_s__n_-[0-9a-f]{12}$/);
    expect(tableFolder("/Volumes/c/s/v", { schema: "raw", name: "it_s ünï" })).not.toBe(odd);
    expect(tableFolder("/Volumes/c/s/v", { schema: "raw_a", name: "b" })).not.toBe(
      tableFolder("/Volumes/c/s/v", { schema: "raw", name: "a_b" }),
    );
  });

  it("names staged files by unit and number", () => {
    expect(stagedFileName("u-1", 3)).toBe("u-1-0003.parquet");
  });
});
