import { type PostgresInstance, startPostgres } from "@sqlload/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CrashProject, type KillReport, killOnce, prng, type Scenario, type TargetKind } from "./crash-harness.js";

// Crash safety (SPEC §6, §10, §11): SIGKILL the built CLI at random instants and at exact points —
// while reading, between a write and its commit, right after a commit — then the next run
// completes and the target holds exactly the source's rows. Seeded and reproducible:
// SQLLOAD_CRASH_SEED picks the instants, SQLLOAD_CRASH_KILLS the kills per scenario and target
// (scripts/crash-soak.sh runs many more).
const SEED = Number(process.env.SQLLOAD_CRASH_SEED ?? 20261129);
const KILLS = Number(process.env.SQLLOAD_CRASH_KILLS ?? 2);
const window = `cursor_column = "updated_at"\ncursor_start = "2026-01-01"\ncursor_end = "2026-01-07"\nbatch_size = "1d"`;

export const scenarios: Scenario[] = [
  { name: "delete_insert, windowed", table: "orders", toml: `${window}\nwrite_strategy = "delete_insert"` },
  {
    name: "delete_insert, one commit per read",
    table: "orders",
    toml: `cursor_column = "updated_at"\nwrite_strategy = "delete_insert"`,
  },
  { name: "merge, windowed", table: "orders", toml: `${window}\nwrite_strategy = "merge"\nprimary_key = ["id"]` },
  { name: "append, windowed, strictly increasing cursor", table: "orders", toml: `${window}\nwrite_strategy = "append"` },
  { name: "append, one commit per read", table: "orders", toml: `cursor_column = "updated_at"\nwrite_strategy = "append"` },
  { name: "replace", table: "orders", toml: `write_strategy = "replace"` },
  { name: "logged state with checkpoints", table: "events", toml: "" },
  { name: "logged state without checkpoints", table: "feed", toml: "", duplicatesAllowed: true },
];

/**
 * The crash suite for one target; each target runs in its own test file so the two run in parallel.
 * `offset` keeps the seeds of the two files apart.
 */
export function describeCrashSuite(target: TargetKind, offset: number): void {
  const reports: KillReport[] = [];
  let postgres: PostgresInstance | undefined;

  beforeAll(async () => {
    if (target === "postgres") postgres = await startPostgres();
  });

  afterAll(async () => {
    await postgres?.stop();
    const killed = reports.filter((r) => r.killed).length;
    console.log(
      `crash suite (${target}): survived ${reports.length} kill cycles, ${killed} of them killed mid-flight, seed ${SEED}`,
    );
  });

  describe(`crash safety into ${target}`, () => {
    for (const [i, scenario] of scenarios.entries()) {
      const id = offset + i;
      it(`${scenario.name}: ${KILLS} kills, nothing lost${scenario.duplicatesAllowed ? "" : " or doubled"}`, async () => {
        const project = new CrashProject(scenario, target, postgres?.url, id);
        const random = prng(SEED + id);
        for (let k = 0; k < KILLS; k++) {
          const report = await killOnce(project, random, 1500);
          reports.push(report);
          const what = `${scenario.name} into ${target}, ${report.how}`;
          expect(report.distinct, `rows lost: ${what}`).toBe(project.expected);
          if (!scenario.duplicatesAllowed) expect(report.rows, `rows doubled: ${what}`).toBe(project.expected);
        }
      });
    }
  });
}
