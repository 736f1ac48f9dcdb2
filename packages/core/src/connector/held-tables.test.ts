import { describe, expect, it } from "vitest";
import { HeldTables } from "./held-tables.js";

const T = { schema: "raw", name: "t" };

describe("HeldTables", () => {
  const reader = () => {
    let reads = 0;
    const read = async (): Promise<string | null> => {
      reads++;
      return `v${reads}`;
    };
    return { read, reads: () => reads };
  };

  it("reads a table not held every time", async () => {
    const tables = new HeldTables<string>();
    const { read, reads } = reader();
    await tables.get(T, read);
    await tables.get(T, read);
    expect(reads()).toBe(2);
  });

  it("reads a held table once, again after forget, and every time once released", async () => {
    const tables = new HeldTables<string>();
    const { read, reads } = reader();
    tables.hold(T);
    expect(await tables.get(T, read)).toBe("v1");
    expect(await tables.get(T, read)).toBe("v1");
    tables.forget(T);
    expect(await tables.get(T, read)).toBe("v2");
    tables.release(T);
    await tables.get(T, read);
    await tables.get(T, read);
    expect(reads()).toBe(4);
  });

  it("keeps that a held table does not exist, until forgotten", async () => {
    const tables = new HeldTables<string>();
    let reads = 0;
    tables.hold(T);
    const missing = async () => {
      reads++;
      return null;
    };
    expect(await tables.get(T, missing)).toBeNull();
    expect(await tables.get(T, missing)).toBeNull();
    expect(reads).toBe(1);
  });

  it("does not keep what was read before a forget that came while reading (the target's own DDL)", async () => {
    const tables = new HeldTables<string>();
    const { read, reads } = reader();
    tables.hold(T);
    const slow = tables.get(T, async () => {
      tables.forget(T);
      return read();
    });
    expect(await slow).toBe("v1");
    expect(await tables.get(T, read)).toBe("v2");
    expect(await tables.get(T, read)).toBe("v2");
    expect(reads()).toBe(2);
  });

  it("does not keep what was read for a table released meanwhile", async () => {
    const tables = new HeldTables<string>();
    const { read, reads } = reader();
    tables.hold(T);
    const slow = tables.get(T, async () => {
      tables.release(T);
      return read();
    });
    await slow;
    await tables.get(T, read);
    expect(reads()).toBe(2);
  });
});
