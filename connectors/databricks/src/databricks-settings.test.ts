import { describe, expect, it } from "vitest";
import { collationWarning, commitModelNote } from "./databricks-commit-model.js";
import { parseSettings } from "./databricks-settings.js";

const base = { host: "https://adb-1.2.azuredatabricks.net", http_path: "/sql/1.0/warehouses/x", catalog: "main" };

describe("the Databricks target's settings", () => {
  it("takes a token or OAuth M2M, never both, and defaults transactions to auto", () => {
    const s = parseSettings({ ...base, token: "dapi-1" }, "/tmp");
    expect(s).toMatchObject({
      host: "adb-1.2.azuredatabricks.net",
      auth: { kind: "token", token: "dapi-1" },
      transactions: "auto",
    });
    expect(parseSettings({ ...base, client_id: "id", client_secret: "s" }, "/tmp").auth).toEqual({
      kind: "oauth-m2m",
      clientId: "id",
      clientSecret: "s",
    });
    expect(() => parseSettings({ ...base, token: "t", client_id: "id" }, "/tmp")).toThrow(
      expect.objectContaining({ code: "SL112" }),
    );
    expect(() => parseSettings(base, "/tmp")).toThrow(expect.objectContaining({ code: "SL105" }));
    expect(() => parseSettings({ ...base, token: "t", transactions: "yes" }, "/tmp")).toThrow(
      expect.objectContaining({ code: "SL107" }),
    );
    expect(() => parseSettings({ host: "h", token: "t", catalog: "c" }, "/tmp")).toThrow(/http_path/);
  });

  it("takes a volume as a name or a /Volumes/ folder, and a whole-number bulk threshold", () => {
    const token = { ...base, token: "t" };
    expect(parseSettings(token, "/tmp")).toMatchObject({ volume: undefined, bulkThreshold: 5000 });
    expect(parseSettings({ ...token, volume: "main.raw.staging" }, "/tmp").volume).toBe("/Volumes/main/raw/staging");
    expect(parseSettings({ ...token, volume: "/Volumes/main/raw/staging/sub-dir/" }, "/tmp").volume).toBe(
      "/Volumes/main/raw/staging/sub-dir",
    );
    expect(parseSettings({ ...token, volume: "main.raw.staging", bulk_threshold: 0 }, "/tmp").bulkThreshold).toBe(0);
    for (const volume of ["main.raw", "a.b.c.d", "/Volumes/main/raw", "main.raw.it's", "/Volumes/m/r/v/a b"]) {
      expect(() => parseSettings({ ...token, volume }, "/tmp")).toThrow(expect.objectContaining({ code: "SL103" }));
    }
    expect(() => parseSettings({ ...token, bulk_threshold: -1 }, "/tmp")).toThrow(expect.objectContaining({ code: "SL103" }));
    expect(() => parseSettings({ ...token, bulk_threshold: 1.5 }, "/tmp")).toThrow(/bulk_threshold/);
  });

  it("says which commit model applies and why, and warns about collations", () => {
    expect(commitModelNote({ atomic: true, reason: 'transactions = "atomic"' })).toMatch(/BEGIN ATOMIC/);
    expect(commitModelNote({ atomic: false, reason: "x" })).toMatch(/data first .* then the run log/);
    expect(collationWarning("c", "UTF8_BINARY")).toBeUndefined();
    expect(collationWarning("c", "UNICODE_CI")).toMatch(/UNICODE_CI.*UTF8_BINARY/);
  });
});
