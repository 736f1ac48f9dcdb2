import { describe, expect, it } from "vitest";
import type { ProjectConfig, TableConfig } from "../config/project-config.js";
import { defineConnector } from "../connector/connector.js";
import type { Column } from "../connector/logical-types.js";
import type { RunEvent } from "../events/run-event.js";
import { ProjectSession } from "./project-session.js";
import { loadProject, planProject } from "./run-project.js";
import { MemorySource } from "./testing/memory-source.js";
import { MemoryTarget } from "./testing/memory-target.js";

const columns: Column[] = [
  { name: "id", type: { kind: "int64" }, nullable: false },
  { name: "k", type: { kind: "int64" }, nullable: true },
];
const location = { file: "sqlload.toml" };
const tableConfig = (name: string, settings: TableConfig["settings"] = {}): TableConfig => ({
  source: "app",
  ref: { name, key: name },
  target: { schema: "raw", name: `app__${name}` },
  settings: { cursorColumn: "k", ...settings },
  options: {},
  where: () => location,
});

/** A project of `tables` on source `app`, its target and source served by the connectors named. */
const projectConfig = (tables: TableConfig[], targetConnector = "memory", sourceConnector = "memory") =>
  ({
    file: "/p/sqlload.toml",
    dir: "/p",
    target: { connector: targetConnector, schema: "raw", options: {}, location },
    sources: [{ name: "app", connector: sourceConnector, options: {}, tables, location }],
    secrets: [],
  }) as unknown as ProjectConfig;

function project(
  target: MemoryTarget,
  tables: TableConfig[],
  source = new MemorySource({ columns, rows: [{ id: 1n, k: 1n }], cursorColumn: "k" }),
) {
  const config = projectConfig(tables);
  const connector = defineConnector({
    manifest: { name: "memory", version: "1.0.0" },
    source: async () => source,
    target: async () => target,
  });
  const session = new ProjectSession(config, () => connector);
  const events: RunEvent[] = [];
  return { session, events };
}

describe("loadProject", () => {
  it("loads every table independently: one locked by another run is skipped, the other loads", async () => {
    const target = new MemoryTarget({ locking: true });
    const { session, events } = project(target, [tableConfig("a"), tableConfig("b")]);
    target.locked.add("raw.app__a");
    const tables = await session.tables();
    const run = await loadProject(session, tables, {
      flags: {},
      emit: (e) => events.push(e),
      signal: new AbortController().signal,
    });
    expect(run.results.map((r) => [r.table, r.status])).toEqual([
      ["raw.app__a", "skipped"],
      ["raw.app__b", "loaded"],
    ]);
    expect(run.results[0]?.error?.code).toBe("SL306");
    expect(events.map((e) => e.type)).toContain("table_skipped");
    // Locks taken by the run are released.
    expect([...target.locked]).toEqual(["raw.app__a"]);
  });

  it("stops starting tables after the first failure with failFast", async () => {
    const target = new MemoryTarget({ writeStrategies: ["delete_insert"] });
    const { session, events } = project(target, [tableConfig("a", { writeStrategy: "append" }), tableConfig("b")]);
    const run = await loadProject(session, await session.tables(), {
      flags: {},
      failFast: true,
      emit: (e) => events.push(e),
      signal: new AbortController().signal,
    });
    expect(run.results.map((r) => [r.table, r.status, r.error?.code])).toEqual([["raw.app__a", "failed", "SL212"]]);
  });

  it("describes the table on the source while the target opens, and reports the target's failure first", async () => {
    const source = new MemorySource({ columns, rows: [{ id: 1n, k: 1n }], cursorColumn: "k" });
    const describe = source.describeTable.bind(source);
    let describes = 0;
    let failDescribe = false;
    source.describeTable = async () => {
      describes++;
      if (failDescribe) throw new Error("the table went away");
      return describe();
    };
    const target = new MemoryTarget();
    let describedWhenOpening: number | undefined;
    let failOpen = false;
    const config = projectConfig([tableConfig("a")]);
    const connector = defineConnector({
      manifest: { name: "memory", version: "1.0.0" },
      source: async () => source,
      target: async () => {
        describedWhenOpening = describes;
        if (failOpen) throw new Error("no route to the warehouse");
        return target;
      },
    });
    const options = { flags: {}, emit: () => {}, signal: new AbortController().signal };
    const session = new ProjectSession(config, () => connector);
    const run = await loadProject(session, await session.tables(), options);
    expect(run.results.map((r) => r.status)).toEqual(["loaded"]);
    // Once, by the checks before any target opens: the load, starting at once, takes that description.
    expect(describedWhenOpening).toBe(1);
    expect(describes).toBe(1);

    failOpen = true;
    failDescribe = true;
    describes = 0;
    const failing = new ProjectSession(config, () => connector);
    const failed = await loadProject(failing, await failing.tables(), options);
    // The checks' description failed (left for the load to report); the load's own, under way while
    // the target opened, failed too, after the target's failure, which is the one reported.
    expect(describes).toBe(2);
    expect(failed.results.map((r) => [r.status, r.error?.code])).toEqual([["failed", "SL305"]]);
    expect(failed.results[0]?.error?.message).toContain("cannot open target memory");
  });

  it("opens a target whose opening changes nothing while the checks describe the tables, and others after", async () => {
    for (const inert of [true, false]) {
      const source = new MemorySource({ columns, rows: [{ id: 1n, k: 1n }], cursorColumn: "k" });
      const describe = source.describeTable.bind(source);
      let opened = false;
      const openedWhileDescribing: boolean[] = [];
      source.describeTable = async () => {
        // A round trip to the source: long enough for an opening begun before it to have started.
        await new Promise((resolve) => setTimeout(resolve, 5));
        openedWhileDescribing.push(opened);
        return describe();
      };
      const connector = defineConnector({
        manifest: { name: "memory", version: "1.0.0" },
        source: async () => source,
        target: async () => {
          opened = true;
          return new MemoryTarget();
        },
        targetOpenIsInert: () => inert,
      });
      const session = new ProjectSession(projectConfig([tableConfig("a")]), () => connector);
      const run = await loadProject(session, await session.tables(), {
        flags: {},
        emit: () => {},
        signal: new AbortController().signal,
      });
      expect(run.results.map((r) => r.status)).toEqual(["loaded"]);
      expect(openedWhileDescribing).toEqual([inert]);
    }
  });

  it("reads the target state of the tables that start at once while the checks describe them, where no lock guards it", async () => {
    for (const locking of [false, true]) {
      const source = new MemorySource({ columns, rows: [{ id: 1n, k: 1n }], cursorColumn: "k" });
      const describe = source.describeTable.bind(source);
      let checking = false;
      source.describeTable = async () => {
        checking = true;
        await new Promise((resolve) => setTimeout(resolve, 5));
        checking = false;
        return describe();
      };
      const target = new MemoryTarget({ locking });
      const reads: string[] = [];
      for (const method of ["describeTable", "readRunLog"] as const) {
        const read = target[method].bind(target) as (...args: unknown[]) => Promise<unknown>;
        (target as unknown as Record<string, unknown>)[method] = (ref: { name: string }, ...rest: unknown[]) => {
          reads.push(`${method} ${ref.name}${checking ? " during the checks" : ""}`);
          return read(ref, ...rest);
        };
      }
      let connected = false;
      (target as MemoryTarget & { connect(): Promise<void> }).connect = async () => {
        // Reached after the connector's open has settled, beside the checks (openTargetEarly).
        await new Promise((resolve) => setTimeout(resolve, 1));
        connected = true;
      };
      const connector = defineConnector({
        manifest: { name: "memory", version: "1.0.0" },
        source: async () => source,
        target: async () => target,
        targetOpenIsInert: () => true,
      });
      const session = new ProjectSession(projectConfig([tableConfig("a"), tableConfig("b")]), () => connector);
      const run = await loadProject(session, await session.tables(), {
        flags: {},
        emit: () => {},
        signal: new AbortController().signal,
      });
      expect(run.results.map((r) => r.status)).toEqual(["loaded", "loaded"]);
      expect(connected).toBe(true);
      // Only "a" starts at once (one table at a time), and its log is read early even though a table
      // not there yet needs none; "b" starts after "a" committed and reads what it needs itself.
      const early = locking
        ? ["describeTable app__a"]
        : ["describeTable app__a during the checks", "readRunLog app__a during the checks"];
      expect(reads).toEqual([...early, "describeTable app__b"]);
    }
  });

  it("waits, when the checks fail, for the target reads it began, so the target never closes under one", async () => {
    const target = new MemoryTarget();
    const describe = target.describeTable.bind(target);
    let reading = false;
    target.describeTable = async (ref) => {
      reading = true;
      await new Promise((resolve) => setTimeout(resolve, 20));
      reading = false;
      return describe(ref);
    };
    const connector = defineConnector({
      manifest: { name: "memory", version: "1.0.0" },
      source: async () => new MemorySource({ columns, rows: [], cursorColumn: "k" }),
      target: async () => target,
      targetOpenIsInert: () => true,
    });
    const session = new ProjectSession(projectConfig([tableConfig("a")]), () => connector);
    const failing = loadProject(session, await session.tables(), {
      // A cursor value that is not an integer: a config error of the checks.
      flags: { startCursor: "not a number" },
      emit: () => {},
      signal: new AbortController().signal,
    });
    await expect(failing).rejects.toMatchObject({ code: "SL113" });
    expect(reading).toBe(false);
  });

  it("describes a table again when its load starts after another table's commit", async () => {
    const source = new MemorySource({ columns, rows: [{ id: 1n, k: 1n }], cursorColumn: "k" });
    const describe = source.describeTable.bind(source);
    let describes = 0;
    source.describeTable = async () => {
      describes++;
      return describe();
    };
    const { session } = project(new MemoryTarget(), [tableConfig("a"), tableConfig("b")], source);
    const run = await loadProject(session, await session.tables(), {
      flags: {},
      emit: () => {},
      signal: new AbortController().signal,
    });
    expect(run.results.map((r) => r.status)).toEqual(["loaded", "loaded"]);
    // Both by the checks; "b" again by its load, which started after "a" committed (one at a time):
    // a source may read what an earlier table of the run wrote.
    expect(describes).toBe(3);
  });

  it("refuses logged tables on a data-then-log target before anything connects", async () => {
    let connected = false;
    const source = new MemorySource({ columns, rows: [], cursorColumn: "k", loggedState: true });
    const config = projectConfig([tableConfig("a")], "lake", "code");
    const connectors = {
      lake: defineConnector({
        manifest: { name: "lake", version: "1.0.0" },
        targetCapabilities: { commitModel: "data-then-log", loggedTablesSetting: "catalog_managed_commits" },
        target: async () => {
          connected = true;
          return new MemoryTarget({ commitModel: "data-then-log", loggedTablesSetting: "catalog_managed_commits" });
        },
      }),
      code: defineConnector({ manifest: { name: "code", version: "1.0.0" }, offersTables: true, source: async () => source }),
    };
    const session = new ProjectSession(config, (name) => connectors[name as keyof typeof connectors]);
    const tables = await session.tables();
    const options = { flags: {}, emit: () => {}, signal: new AbortController().signal };
    await expect(loadProject(session, tables, options)).rejects.toMatchObject({ code: "SL116" });
    await expect(planProject(session, tables, {}, new Date())).rejects.toMatchObject({ code: "SL116" });
    expect(connected).toBe(false);
  });
});

describe("planProject", () => {
  it("shows what only the target can tell under the table, in plan and not on a load", async () => {
    const target = new MemoryTarget();
    const asked: unknown[] = [];
    Object.assign(target, {
      planNotes: async (ref: unknown, context: unknown) => {
        asked.push({ ref, context });
        return ["cursor k sets collation und:ci on the target"];
      },
    });
    const { session } = project(target, [tableConfig("a")]);
    const tables = await session.tables();
    const planned = await planProject(session, tables, {}, new Date("2026-10-15T00:00:00Z"));
    expect(planned.prepared[0]?.plan.notes).toContain("cursor k sets collation und:ci on the target");
    expect(asked).toEqual([
      {
        ref: { schema: "raw", name: "app__a" },
        context: {
          cursor: { column: "k", kind: "integer" },
          strategy: "delete_insert",
          rebuild: false,
          range: {},
          includeNulls: true,
        },
      },
    ]);
    await loadProject(session, tables, { flags: {}, emit: () => {}, signal: new AbortController().signal });
    expect(asked).toHaveLength(1);
  });
});
