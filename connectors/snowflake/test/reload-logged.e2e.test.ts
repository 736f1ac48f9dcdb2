import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { feedIds, LOGGED_FEED_TOML, setFeedPages, writeLoggedFeed } from "@sqlload/testing";
import { type RequestInfo, type RequestMatcher, SnowflakeEmulator } from "@sqlload/testing/emulator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, removeProjects, SnowflakeProject, startSqlload } from "./cli.js";

// A table whose position lives only in the run log (TypeScript, `state = "logged"`, no cursor,
// `append`): a `--reload` cannot build a table and `SWAP WITH` it before recording, since a SIGKILL
// between the two would make the next run append from the old state again. It replaces the rows in
// the live table inside the one transaction that records the new state. SIGKILL inside that
// transaction (where the swap would have been) and with its COMMIT in flight: each time the next
// run ends exactly equal to the source.
const built = existsSync(CLI);

describe.runIf(built)("a --reload into Snowflake of a logged table without a cursor, killed", () => {
  let emulator: SnowflakeEmulator;
  beforeAll(async () => {
    emulator = await SnowflakeEmulator.start();
  });
  afterAll(async () => {
    await emulator?.close();
    removeProjects();
  });

  let schemas = 0;
  const project = () => {
    const schema = `logged_${++schemas}`;
    const p = new SnowflakeProject(emulator, "unused", "").setSchema(schema);
    const file = join(p.dir, "sqlload.toml");
    // Only the TypeScript feed: the Postgres source the helper writes is not wanted here.
    writeFileSync(file, `${readFileSync(file, "utf8").split("[sources.app]")[0]}${LOGGED_FEED_TOML}`);
    const targetIds = async () =>
      (await emulator.database.query(`SELECT id FROM "${schema}"."api__events" ORDER BY id`)).rows.map((r) =>
        BigInt(r[0] as bigint),
      );
    const states = async () =>
      (await emulator.database.query(`SELECT body FROM "${schema}"."_sqlload_runs" ORDER BY pos`)).rows.map(
        (r) => JSON.parse(String(r[0])).state,
      );
    return { p, targetIds, states };
  };
  const deletesEveryRow = (r: RequestInfo) => r.shapes.includes("delete_range") && /WHERE TRUE$/.test(r.statement ?? "");
  /** The COMMIT of the transaction that deleted every row. */
  const commitAfterDeleteAll = (): RequestMatcher => {
    let deleted = false;
    return (r) => {
      if (deletesEveryRow(r)) deleted = true;
      return deleted && r.shapes.includes("commit");
    };
  };

  /** Runs `load --reload` until `match` is held, checks no swap or rename was sent, SIGKILLs it, then lets the request go. */
  async function killReload(p: SnowflakeProject, match: RequestMatcher): Promise<void> {
    const before = emulator.failures.requests.length;
    const held = emulator.failures.holdNext(match);
    const child = startSqlload(["load", "--reload"], { cwd: p.dir, env: { SNOWFLAKE_PASSWORD: "secret" } });
    const exited = new Promise((resolve) => child.once("close", resolve));
    const first = await Promise.race([held.then(() => "held" as const), exited.then(() => "exited" as const)]);
    if (first === "exited") {
      emulator.failures.reset();
      throw new Error("the reload ended without replacing the rows in place");
    }
    const sent = emulator.failures.requests.slice(before).flatMap((r) => r.shapes);
    expect(sent.filter((s) => s === "swap" || s === "rename")).toEqual([]);
    child.kill("SIGKILL");
    await exited;
    emulator.failures.releaseHeld();
    await new Promise((resolve) => setTimeout(resolve, 200)); // it reaches DuckDB after its client died
  }

  it("inside the transaction, where the swap would have been: nothing changed, the next run appends each page once", async () => {
    const { p, targetIds, states } = project();
    writeLoggedFeed(p.dir, 2);
    await p.ok("load");
    expect(await targetIds()).toEqual(feedIds(2));
    setFeedPages(p.dir, 3);
    await killReload(p, deletesEveryRow);
    // Snowflake ends the abandoned session: its transaction rolls back.
    await emulator.expireSessions();
    expect(await targetIds()).toEqual(feedIds(2));
    expect((await states()).at(-1)).toBe(2);
    await p.ok("load");
    expect(await targetIds()).toEqual(feedIds(3));
    expect((await states()).at(-1)).toBe(3);
  }, 180_000);

  it("with its COMMIT in flight: the rows land with their record, and the next run carries on from it", async () => {
    const { p, targetIds, states } = project();
    writeLoggedFeed(p.dir, 2);
    await p.ok("load");
    setFeedPages(p.dir, 3);
    await killReload(p, commitAfterDeleteAll());
    expect(await targetIds()).toEqual(feedIds(3));
    expect((await states()).at(-1)).toBe(3);
    await emulator.expireSessions();
    setFeedPages(p.dir, 4);
    await p.ok("load");
    expect(await targetIds()).toEqual(feedIds(4));
  }, 180_000);
});
