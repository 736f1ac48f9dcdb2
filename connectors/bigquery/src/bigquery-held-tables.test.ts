import { describe, expect, it } from "vitest";
import type { TableMetadata } from "./bigquery-catalog.js";
import { HeldTables } from "./bigquery-held-tables.js";

describe("HeldTables", () => {
  const reader = () => {
    let reads = 0;
    const read = async (): Promise<TableMetadata | null> => {
      reads++;
      return { schema: { fields: [{ name: `v${reads}`, type: "INT64" }] } } as TableMetadata;
    };
    return { read, reads: () => reads };
  };

  it("reads a table not held every time", async () => {
    const tables = new HeldTables();
    const { read, reads } = reader();
    await tables.get("ds\0t", read);
    await tables.get("ds\0t", read);
    expect(reads()).toBe(2);
  });

  it("reads a held table once, again after forget, and every time once released", async () => {
    const tables = new HeldTables();
    const { read, reads } = reader();
    tables.hold("ds\0t");
    expect((await tables.get("ds\0t", read))?.schema?.fields?.[0]?.name).toBe("v1");
    expect((await tables.get("ds\0t", read))?.schema?.fields?.[0]?.name).toBe("v1");
    tables.forget("ds\0t");
    expect((await tables.get("ds\0t", read))?.schema?.fields?.[0]?.name).toBe("v2");
    tables.release("ds\0t");
    await tables.get("ds\0t", read);
    await tables.get("ds\0t", read);
    expect(reads()).toBe(4);
  });

  it("keeps that a held table does not exist, until forgotten", async () => {
    const tables = new HeldTables();
    let reads = 0;
    tables.hold("ds\0t");
    const missing = async () => {
      reads++;
      return null;
    };
    expect(await tables.get("ds\0t", missing)).toBeNull();
    expect(await tables.get("ds\0t", missing)).toBeNull();
    expect(reads).toBe(1);
  });

  it("does not keep what was read for a table released meanwhile", async () => {
    const tables = new HeldTables();
    const { read, reads } = reader();
    tables.hold("ds\0t");
    const slow = tables.get("ds\0t", async () => {
      tables.release("ds\0t");
      return read();
    });
    await slow;
    await tables.get("ds\0t", read);
    expect(reads()).toBe(2);
  });
});
