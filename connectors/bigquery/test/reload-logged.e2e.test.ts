import { existsSync } from "node:fs";
import { feedIds, LOGGED_FEED_TOML, SQLLOAD_CLI, setFeedPages, writeLoggedFeed } from "@sqlload/testing";
import type { RequestInfo } from "@sqlload/testing/emulator";
import { BigQueryEmulator } from "@sqlload/testing/emulator/bigquery";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BigQueryProject } from "./cli-project.js";
import { readerFor, readTable } from "./harness.js";

// A table whose position lives only in the run log (TypeScript, `state = "logged"`, no cursor,
// `append`): a `--reload` cannot swap a build in and record after it, since a SIGKILL between the
// two would make the next run append from the old state again. It replaces the rows in the live
// table inside the one transaction that records the new state. SIGKILL where the swap would have
// been, and with that transaction in flight: each time the next run ends exactly equal to the source.
const built = existsSync(SQLLOAD_CLI);

describe.runIf(built)("a --reload into BigQuery of a logged table without a cursor, killed", () => {
  let emulator: BigQueryEmulator;
  beforeAll(async () => {
    emulator = await BigQueryEmulator.start();
  });
  afterAll(async () => {
    BigQueryProject.removeAll();
    await emulator?.stop();
  });

  const project = (name: string) => {
    const options = { project: name, api_endpoint: emulator.endpoint, access_token: "t", lock_ttl: 1 };
    const p = new BigQueryProject(options, LOGGED_FEED_TOML);
    const targetIds = async () =>
      ((await readTable(readerFor(options), "raw", "api__events")) ?? [])
        .map((r) => r.id as bigint)
        .sort((a, b) => Number(a - b));
    const states = async () =>
      ((await readTable(readerFor(options), "raw", "_sqlload_runs")) ?? [])
        .filter((r) => r.target_name === "api__events")
        .sort((a, b) => Number((a.seq as bigint) - (b.seq as bigint)))
        .map((r) => JSON.parse(String(r.body)).state);
    return { p, targetIds, states };
  };
  /** The reload's one commit: every row deleted, the stage's inserted and the record appended, in one script. */
  const inPlaceReplace = (r: RequestInfo) =>
    r.operation === "jobs.insert" && ["delete_range", "insert_select", "run_log_insert"].every((s) => r.shapes.includes(s));

  /** Runs `load --reload` until `held` arrives, checks no swap was sent, then SIGKILLs it. */
  async function killReload(p: BigQueryProject, held: Promise<RequestInfo>): Promise<void> {
    const before = emulator.failures.requests.length;
    const child = p.start(["load", "--reload"]);
    const exited = new Promise((resolve) => child.once("close", resolve));
    await Promise.race([
      held,
      exited.then(() => {
        throw new Error("the reload ended without replacing the rows in place");
      }),
    ]);
    expect(emulator.failures.requests.slice(before).some((r) => r.shapes.includes("copy"))).toBe(false);
    child.kill("SIGKILL");
    await exited;
  }

  it("where the swap would have been: nothing changed, and the next run appends each page once", async () => {
    const { p, targetIds, states } = project("logged-unsent");
    writeLoggedFeed(p.dir, 2);
    await p.ok("load");
    expect(await targetIds()).toEqual(feedIds(2));
    expect((await p.ok("plan", "--reload")).stdout).toMatch(/rebuilt in place, not swapped/);
    setFeedPages(p.dir, 3);
    await killReload(p, emulator.holdNextUnsent(inPlaceReplace));
    emulator.failures.releaseHeld(); // the killed process never sent it
    expect(await targetIds()).toEqual(feedIds(2));
    expect((await states()).at(-1)).toBe(2);
    await new Promise((resolve) => setTimeout(resolve, 1500)); // the killed run's lock row expires
    await p.ok("load");
    expect(await targetIds()).toEqual(feedIds(3));
    expect((await states()).at(-1)).toBe(3);
  }, 180_000);

  it("with the commit in flight: it lands with its record, and the next run carries on from it", async () => {
    const { p, targetIds, states } = project("logged-in-flight");
    writeLoggedFeed(p.dir, 2);
    await p.ok("load");
    setFeedPages(p.dir, 3);
    await killReload(p, emulator.failures.holdNext(inPlaceReplace));
    emulator.failures.releaseHeld(); // sent before the kill: BigQuery runs it to the end
    await expect.poll(states, { timeout: 10_000 }).toContain(3);
    expect(await targetIds()).toEqual(feedIds(3));
    await new Promise((resolve) => setTimeout(resolve, 1500));
    setFeedPages(p.dir, 4);
    await p.ok("load");
    expect(await targetIds()).toEqual(feedIds(4));
  }, 180_000);
});
