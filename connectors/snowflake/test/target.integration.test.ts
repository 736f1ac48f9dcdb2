import { generateKeyPairSync } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { batchFromRows, type Column } from "@sqlload/core";
import { requestMatching, SnowflakeEmulator } from "@sqlload/testing/emulator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseSnowflakeSettings } from "../src/snowflake-settings.js";
import { SnowflakeTarget } from "../src/snowflake-target.js";
import { type Engine, emulatorEngine, freshSchema, stageTablesLeft } from "./harness.js";

// What the conformance suite does not reach: sign-in failures, retries of expired tokens and of
// network trouble, failures injected inside a commit, and locks left by dead processes.
describe("the Snowflake target against the emulator", () => {
  let engine: Engine;
  beforeAll(async () => {
    engine = await emulatorEngine();
  });
  afterAll(() => engine?.stop());
  const emulator = () => engine.emulator as NonNullable<Engine["emulator"]>;
  /** The statements `work` sent, in order. */
  const statements = async (work: () => Promise<unknown>) => {
    const from = emulator().failures.requests.length;
    await work();
    return emulator()
      .failures.requests.slice(from)
      .flatMap((r) => (r.statement === undefined ? [] : [r.statement]));
  };
  const columns: Column[] = [
    { name: "id", type: { kind: "int64" }, nullable: false },
    { name: "at", type: { kind: "timestamptz" }, nullable: false },
  ];

  it("refuses a wrong password as an authentication error, never retried, without printing it", async () => {
    const error = await SnowflakeTarget.open({ ...engine.settings, auth: { kind: "password", password: "wrong-pw" } }).catch(
      (e) => e,
    );
    expect(error).toMatchObject({ code: "SL309", retryable: false });
    expect(String(error.message)).not.toContain("wrong-pw");
  });

  it("signs in with a key pair (SNOWFLAKE_JWT) given an encrypted PEM key and its passphrase", async () => {
    const { publicKey, privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const dir = mkdtempSync(join(tmpdir(), "sqlload-snowflake-key-"));
    const keyPath = join(dir, "sqlload.p8");
    writeFileSync(keyPath, privateKey.export({ type: "pkcs8", format: "pem", cipher: "aes-256-cbc", passphrase: "pass phrase" }));
    const keyed = await SnowflakeEmulator.start({ publicKey: publicKey.export({ type: "spki", format: "pem" }).toString() });
    try {
      const options = {
        account: "emulator",
        user: "sqlload",
        database: "SQLLOAD",
        access_url: keyed.url,
        private_key_path: keyPath,
      };
      const target = await SnowflakeTarget.open(
        parseSnowflakeSettings({ ...options, private_key_passphrase: "pass phrase" }, dir),
      );
      expect(await target.describeTable({ schema: "raw", name: "absent" })).toBeNull();
      await target.close();
      const wrong = await SnowflakeTarget.open(parseSnowflakeSettings({ ...options, private_key_passphrase: "nope" }, dir)).catch(
        (e) => e,
      );
      expect(wrong).toMatchObject({ code: "SL309", retryable: false });
      expect(String(wrong.message)).not.toContain("nope");
    } finally {
      await keyed.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("signs in again and retries a read when the session token expired (390114)", async () => {
    const target = await SnowflakeTarget.open(engine.settings);
    try {
      const ref = { schema: freshSchema(), name: "t" };
      await target.ensureTable(ref, columns);
      const logins = () => emulator().failures.requests.filter((r) => r.operation === "login-request").length;
      const before = logins();
      emulator().failures.failNext(requestMatching({ shape: "describe_columns" }), "Authentication token has expired.", {
        reason: "390114",
      });
      expect((await target.describeTable(ref))?.columns.map((c) => c.name)).toEqual(["id", "at"]);
      expect(logins()).toBe(before + 1);
    } finally {
      await target.close();
    }
  });

  it("a unit failing inside its transaction rolls back everything and drops its stage", async () => {
    const target = await SnowflakeTarget.open(engine.settings);
    try {
      const ref = { schema: freshSchema(), name: "t" };
      await target.ensureTable(ref, columns);
      const first = await target.begin(ref, { strategy: "append", columns });
      await first.write(batchFromRows(columns, [{ id: 1n, at: "2026-01-01T00:00:00Z" }]));
      await first.commit();
      const unit = await target.begin(ref, { strategy: "delete_insert", columns, cursor: { column: "at", kind: "timestamp" } });
      await unit.deleteRange({ from: { kind: "timestamp", value: 0n } });
      await unit.write(batchFromRows(columns, [{ id: 2n, at: "2026-01-02T00:00:00Z" }]));
      await unit.appendRunLog({ runId: "r", table: `${ref.schema}.t`, at: "2026-01-02T00:00:00Z", formatVersion: 1, body: "{}" });
      // The INSERT … SELECT after the DELETE fails: the DELETE must not survive.
      emulator().failures.failNext(requestMatching({ shape: "insert_select" }), "Warehouse suspended", { reason: "000630" });
      await expect(unit.commit()).rejects.toMatchObject({ code: "SL311", retryable: true });
      await unit.abort();
      const rows = await emulator().database.query(`SELECT CAST(id AS VARCHAR) FROM "${ref.schema}"."t"`);
      expect(rows.rows).toEqual([["1"]]);
      expect(await target.readRunLog(ref)).toEqual([]);
      expect(await stageTablesLeft(emulator(), ref.schema)).toEqual([]);
    } finally {
      await target.close();
    }
  });

  it("spends one statement each on an up-to-date table, on its run log, and none on dropping a stage its session's end drops", async () => {
    const target = await SnowflakeTarget.open(engine.settings);
    try {
      const ref = { schema: freshSchema(), name: "t" };
      await target.ensureTable(ref, columns);
      expect(await statements(() => target.ensureTable(ref, columns))).toHaveLength(1);
      // No log yet reads as none, from the one statement that would have read it.
      expect(await statements(() => target.readRunLog(ref, { last: 100 }))).toHaveLength(1);
      expect(await target.readRunLog(ref, { last: 100 })).toEqual([]);
      const unit = await target.begin(ref, { strategy: "append", columns });
      await unit.write(batchFromRows(columns, [{ id: 1n, at: "2026-01-01T00:00:00Z" }]));
      const committed = await statements(() => unit.commit());
      expect(committed.filter((s) => /^DROP TABLE/i.test(s))).toEqual([]);
      expect(await stageTablesLeft(emulator(), ref.schema)).toEqual([]);
    } finally {
      await target.close();
    }
  });

  it("reads a locked table's columns once for a load's maximum, ensureTable and units; again after its own DDL, and unlocked", async () => {
    const target = await SnowflakeTarget.open(engine.settings);
    try {
      const ref = { schema: freshSchema(), name: "t" };
      await target.ensureTable(ref, columns);
      const catalogReads = async (work: () => Promise<unknown>) =>
        (await statements(work)).filter((s) => /"INFORMATION_SCHEMA"\."COLUMNS"/.test(s)).length;
      const load = async (extra: Column[] = []) => {
        await target.describeTable(ref);
        await target.maxCursor(ref, "at", "timestamp");
        const ensured = await target.ensureTable(ref, [...columns, ...extra]);
        const unit = await target.begin(ref, { strategy: "append", columns: ensured });
        await unit.write(batchFromRows(columns, [{ id: 1n, at: "2026-01-01T00:00:00Z" }]));
        await unit.commit();
        return ensured;
      };
      const lock = await target.lockTable(ref);
      expect(await catalogReads(() => load())).toBe(1);
      let ensured: readonly Column[] = [];
      const note: Column = { name: "note", type: { kind: "text" }, nullable: true };
      expect(await catalogReads(async () => (ensured = await load([note])))).toBe(2);
      expect(ensured.map((c) => c.name)).toEqual(["id", "at", "note"]);
      await lock.release();
      expect(await catalogReads(() => load())).toBe(4);
    } finally {
      await target.close();
    }
  });

  it("notes in plan a TIMESTAMP_NTZ cursor where the user's sessions default to another zone than UTC", async () => {
    const target = await SnowflakeTarget.open(engine.settings);
    try {
      const ref = { schema: freshSchema(), name: "t" };
      await target.ensureTable(ref, [...columns, { name: "ntz", type: { kind: "timestamp" }, nullable: true }]);
      expect(await target.planNotes(ref, { cursor: { column: "ntz", kind: "timestamp" } })).toEqual([
        expect.stringMatching(/TIMESTAMP_NTZ.*America\/Los_Angeles/),
      ]);
      expect(await target.planNotes(ref, { cursor: { column: "at", kind: "timestamp" } })).toEqual([]);
    } finally {
      await target.close();
    }
  });

  it("loads a unit larger than one INSERT's bound values in several, in arrival order, exactly", async () => {
    // Below the bulk threshold: the rows travel as array binds.
    const target = await SnowflakeTarget.open({ ...engine.settings, bulkLoadRows: 1_000_000 });
    try {
      const ref = { schema: freshSchema(), name: "t" };
      const wide: Column[] = [...columns, { name: "v", type: { kind: "text" }, nullable: true }];
      await target.ensureTable(ref, wide);
      const rows = Array.from({ length: 20_000 }, (_, i) => ({
        id: 2n ** 62n + BigInt(i % 16_000),
        at: "2026-01-01T00:00:00.000001Z",
        v: `v${i}`,
      }));
      const unit = await target.begin(ref, { strategy: "merge", columns: wide, primaryKey: ["id"] });
      await unit.write(batchFromRows(wide, rows.slice(0, 16_000)));
      await unit.write(batchFromRows(wide, rows.slice(16_000)));
      await unit.commit();
      const inserts = emulator().failures.requests.filter(
        (r) => r.shapes.includes("insert_values") && r.statement?.includes(ref.schema),
      );
      expect(inserts.length).toBeGreaterThan(1);
      const read = await emulator().database.query(
        `SELECT count(*), CAST(min(id) AS VARCHAR), max(CASE WHEN id = ${2n ** 62n} THEN v END) FROM "${ref.schema}"."t"`,
      );
      // Keys repeat after 16,000 rows: the later row of a key wins the merge.
      expect(read.rows[0]).toEqual([16_000n, String(2n ** 62n), "v16000"]);
    } finally {
      await target.close();
    }
  });

  it("takes over a lock whose holder process is gone, and refuses one held by a live run", async () => {
    const a = await SnowflakeTarget.open(engine.settings);
    const b = await SnowflakeTarget.open(engine.settings);
    try {
      const ref = { schema: freshSchema(), name: "t" };
      const lock = await a.lockTable(ref);
      await expect(b.lockTable(ref)).rejects.toMatchObject({ code: "SL306", retryable: true });
      await lock.release();
      // A lock left by a process of this host that no longer exists (pid 2^22 + 1 is above Linux's pid_max default).
      await emulator().database.query(`CREATE TABLE "${ref.schema}"."_sqlload_lock__t" ("holder" VARCHAR)`);
      const dead = JSON.stringify({ token: "x", host: (await import("node:os")).hostname(), pid: 4_194_305, beat: Date.now() });
      await emulator().database.query(`INSERT INTO "${ref.schema}"."_sqlload_lock__t" VALUES (?)`, [dead]);
      const taken = await b.lockTable(ref);
      await taken.release();
    } finally {
      await a.close();
      await b.close();
    }
  });
});
