import { describe, expect, it } from "vitest";
import { parseDuration } from "../config/duration.js";
import type { TableSettings } from "../config/table-settings.js";
import type { CursorKind } from "../cursor/cursor-kind.js";
import { type CursorValue, formatCursor, parseCursor } from "../cursor/cursor-value.js";
import { type PlanFlags, type PlanInput, planTable } from "./plan-table.js";
import { batchLine, cursorLine, renderPlanTree } from "./render-plan.js";
import { windowAt } from "./windows.js";

const NOW = new Date("2026-10-15T12:34:56.789Z");

function plan(
  settings: TableSettings,
  opts: { kind?: CursorKind; max?: string; flags?: PlanFlags; nullable?: boolean; extra?: Partial<PlanInput> } = {},
) {
  const kind = opts.kind ?? "timestamp";
  return planTable({
    source: "app",
    key: "public.orders",
    target: { schema: "raw", name: "app__orders" },
    settings: { cursorColumn: "updated_at", ...settings },
    cursor: { column: "updated_at", kind, nullable: opts.nullable ?? false },
    targetMax: opts.max ? parseCursor(kind, opts.max) : null,
    flags: opts.flags ?? {},
    now: NOW,
    ...opts.extra,
  });
}

const d = (text: string) => parseDuration(text)!;
const show = (v: CursorValue | undefined) => (v ? formatCursor(v) : undefined);

describe("where a read starts (SPEC §5)", () => {
  it("1. --start-cursor wins over everything, and --end-cursor bounds it [A, B)", () => {
    const p = plan(
      { cursorStart: "2026-01-01", lookbackFrom: "now", lookback: d("1h") },
      { max: "2026-10-12T16:00:00Z", flags: { startCursor: "2026-10-01", endCursor: "2026-10-08" } },
    );
    expect(p.start.reason).toBe("--start-cursor");
    expect(cursorLine(p)).toBe(
      "cursor updated_at from 2026-10-01 00:00:00.000000+00 (--start-cursor), below 2026-10-08 00:00:00.000000+00 (--end-cursor)",
    );
    expect(p.range.fromInclusive).toBe(true);
  });

  it("2. lookback_from = now reads back from the run's start, on the first run too", () => {
    const p = plan({ lookbackFrom: "now", lookback: d("2d") });
    expect(p.start.reason).toBe("now minus lookback");
    expect(show(p.start.value)).toBe("2026-10-13 12:34:56.789000+00");
    const withMax = plan({ lookbackFrom: "now", lookback: d("2d") }, { max: "2026-10-15T00:00:00Z" });
    expect(show(withMax.start.value)).toBe("2026-10-13 12:34:56.789000+00");
  });

  it("3. the destination maximum, inclusive, minus lookback", () => {
    const p = plan({}, { max: "2026-10-12T16:00:00Z" });
    expect(cursorLine(p)).toBe("cursor updated_at from 2026-10-12 16:00:00.000000+00 (destination maximum)");
    const back = plan({ lookback: d("1h") }, { max: "2026-10-12T16:00:00Z" });
    expect(show(back.start.value)).toBe("2026-10-12 15:00:00.000000+00");
    expect(cursorLine(back)).toContain("(destination maximum 2026-10-12 16:00:00.000000+00 minus lookback)");
  });

  it("3. append reads strictly after the maximum, unless append_cursor_inclusive", () => {
    const p = plan({ writeStrategy: "append" }, { max: "2026-10-12T16:00:00Z" });
    expect(cursorLine(p)).toBe("cursor updated_at after 2026-10-12 16:00:00.000000+00 (destination maximum)");
    expect(p.range.fromInclusive).toBe(false);
    const inclusive = plan({ writeStrategy: "append", appendCursorInclusive: true }, { max: "2026-10-12T16:00:00Z" });
    expect(inclusive.range.fromInclusive).toBe(true);
    expect(cursorLine(inclusive)).toContain("from 2026-10-12 16:00:00.000000+00");
  });

  it("4. cursor_start when the target is empty", () => {
    const p = plan({ cursorStart: "2026-09-01" });
    expect(cursorLine(p)).toBe("cursor updated_at first run, from cursor_start 2026-09-01 00:00:00.000000+00");
  });

  it("5. otherwise everything, NULL cursors included", () => {
    const p = plan({}, { nullable: true });
    expect(p.start.reason).toBe("everything");
    expect(p.includeNulls).toBe(true);
    expect(p.notes.join("\n")).toContain("NULL");
    const incremental = plan({}, { nullable: true, max: "2026-10-01T00:00:00Z" });
    expect(incremental.includeNulls).toBe(false);
  });

  it("--reload ignores the destination maximum and rebuilds", () => {
    const p = plan({ cursorStart: "2026-09-01" }, { max: "2026-10-12T16:00:00Z", flags: { reload: true } });
    expect(p.start.reason).toBe("cursor_start");
    expect(p.commit).toBe("swap");
  });
});

describe("date cursors", () => {
  it("move back whole days, rounded up", () => {
    const p = plan({ lookback: d("1h") }, { kind: "date", max: "2026-10-12" });
    expect(show(p.start.value)).toBe("2026-10-11");
    expect(show(plan({ lookback: d("2d1h") }, { kind: "date", max: "2026-10-12" }).start.value)).toBe("2026-10-09");
  });

  it("lookahead reads up to and including today plus N days", () => {
    const p = plan({ lookahead: d("2d") }, { kind: "date", max: "2026-10-12" });
    expect(p.end?.reason).toBe("now plus lookahead");
    expect(show(p.end?.value)).toBe("2026-10-18"); // today 2026-10-15 + 2 days, inclusive → below the 18th
  });

  it('cursor_end = "now" loads up to yesterday, never half of today', () => {
    const p = plan({ cursorEnd: "now", cursorStart: "2026-10-01", batchSize: d("1d") }, { kind: "date" });
    expect(show(p.end?.value)).toBe("2026-10-15");
    expect(p.windows?.count).toBe(14);
    expect(show(windowAt(p.windows!, 13).from)).toBe("2026-10-14");
  });
});

describe("timestamp lookahead", () => {
  it("reads only values before now plus lookahead", () => {
    const p = plan({ lookahead: d("1h") }, { max: "2026-10-12T16:00:00Z" });
    expect(show(p.end?.value)).toBe("2026-10-15 13:34:56.789000+00");
  });
});

describe("windows (SPEC §6, §9)", () => {
  it("plans a year of 7-day windows as 53 windows", () => {
    const p = plan({ cursorStart: "2025-10-01", cursorEnd: "2026-10-01", batchSize: d("7d") });
    expect(p.windows?.count).toBe(53);
    expect(batchLine(p)).toBe("batch 53 windows of 7days, one commit each");
    expect(show(windowAt(p.windows!, 52).to)).toBe("2026-10-01 00:00:00.000000+00");
  });

  it("shows a per-run bound on the batch line", () => {
    const p = plan({ cursorStart: "2025-10-01", cursorEnd: "2026-10-01", batchSize: d("7d"), maxWindowsPerRun: 1 });
    expect(batchLine(p)).toBe("batch 53 windows of 7days, one commit each, at most 1 this run");
  });

  it("ends at now for a time cursor without an end", () => {
    const p = plan({ cursorStart: "2026-10-01", batchSize: d("7d") });
    expect(p.windows?.count).toBe(3);
    expect(p.end?.reason).toBe("now");
  });

  it("ends just past the source's maximum for an integer cursor", () => {
    const p = plan(
      { cursorStart: "1", batchSize: 100n },
      { kind: "integer", extra: { sourceMax: { kind: "integer", value: 1000n } } },
    );
    expect(p.windows?.count).toBe(10);
    expect(show(windowAt(p.windows!, 9).to)).toBe("1001");
  });

  it("needs a start on the first run (SL202)", () => {
    expect(() => plan({ batchSize: d("7d") })).toThrowError(expect.objectContaining({ code: "SL202" }));
    expect(() => plan({ batchSize: d("7d") }, { flags: { startCursor: "2026-10-01" } })).not.toThrow();
  });

  it("refuses more than 100,000 windows and suggests a size (SL203)", () => {
    const error = (() => {
      try {
        plan({ cursorStart: "2000-01-01", batchSize: d("1m") });
      } catch (e) {
        return e as { code: string; hint: string };
      }
    })();
    expect(error?.code).toBe("SL203");
    expect(error?.hint).toMatch(/at least "\d+[hd]"/);
  });

  it("refuses a batch size that does not fit the cursor kind (SL115)", () => {
    expect(() => plan({ cursorStart: "1", batchSize: d("1d") }, { kind: "integer" })).toThrowError(
      expect.objectContaining({ code: "SL115" }),
    );
    expect(() => plan({ cursorStart: "2026-01-01", batchSize: d("12h") }, { kind: "date" })).toThrowError(
      expect.objectContaining({ code: "SL115" }),
    );
    expect(() => plan({ batchSize: 10n }, { kind: "text", max: "a" })).toThrowError(expect.objectContaining({ code: "SL115" }));
  });

  it("continues from the logged window end while the target's maximum equals the logged one", () => {
    const extra = {
      loggedWindow: {
        windowEnd: parseCursor("timestamp", "2025-10-08"),
        cursor: parseCursor("timestamp", "2025-10-05T10:00:00Z"),
      },
    };
    const settings = { cursorStart: "2025-10-01", cursorEnd: "2026-10-01", batchSize: d("7d") };
    const p = plan(settings, { max: "2025-10-05T10:00:00Z", extra });
    expect(p.start.reason).toBe("window position");
    expect(p.windows?.count).toBe(52);
    // Changed by hand: the data wins.
    const changed = plan(settings, { max: "2025-10-03T00:00:00Z", extra });
    expect(changed.start.reason).toBe("destination maximum");
  });

  it("with lookback, continues aligned to the logged window end, the first window also re-reading the lookback", () => {
    const extra = {
      loggedWindow: {
        windowEnd: parseCursor("timestamp", "2025-10-08"),
        cursor: parseCursor("timestamp", "2025-10-05T10:00:00Z"),
      },
    };
    const p = plan(
      { cursorStart: "2025-10-01", cursorEnd: "2026-10-01", batchSize: d("7d"), lookback: d("14d"), maxWindowsPerRun: 1 },
      { max: "2025-10-05T10:00:00Z", extra },
    );
    // A lookback longer than a window must not stop the backfill: windows still advance from the window end.
    expect(p.windows?.count).toBe(52);
    expect(show(windowAt(p.windows!, 0).from)).toBe("2025-09-24 00:00:00.000000+00");
    expect(show(windowAt(p.windows!, 0).to)).toBe("2025-10-15 00:00:00.000000+00");
    expect(show(windowAt(p.windows!, 1).from)).toBe("2025-10-15 00:00:00.000000+00");
  });

  it("append windows start at the maximum's successor", () => {
    const p = plan(
      { writeStrategy: "append", batchSize: 10n },
      { kind: "integer", max: "100", extra: { sourceMax: { kind: "integer", value: 120n } } },
    );
    expect(show(p.windows?.start)).toBe("101");
    expect(p.windows?.count).toBe(2);
  });
});

describe("settings that need a time cursor", () => {
  it('refuses cursor_end = "now" on an integer cursor (SL207) and lookback on text (SL205)', () => {
    expect(() => plan({ cursorEnd: "now" }, { kind: "integer" })).toThrowError(expect.objectContaining({ code: "SL207" }));
    expect(() => plan({ lookback: d("1h") }, { kind: "text" })).toThrowError(expect.objectContaining({ code: "SL205" }));
  });
});

describe("replace and the plan tree", () => {
  it("says batch_size and lookback are ignored under replace", () => {
    const p = plan({ writeStrategy: "replace", batchSize: d("1d"), lookback: d("1h") }, { max: "2026-10-01T00:00:00Z" });
    expect(p.commit).toBe("swap");
    expect(p.notes.join("\n")).toContain("batch_size and lookback are ignored");
    expect(p.start.reason).toBe("everything");
  });

  it("refuses a range read of a table that is rebuilt (SL211), and replace ignores cursor_start", () => {
    expect(() => plan({ writeStrategy: "replace" }, { flags: { startCursor: "2026-10-01" } })).toThrowError(
      expect.objectContaining({ code: "SL211" }),
    );
    expect(() => plan({}, { flags: { endCursor: "2026-10-01", reload: true } })).toThrowError(
      expect.objectContaining({ code: "SL211" }),
    );
    expect(plan({ writeStrategy: "replace", cursorStart: "2026-01-01" }).start.reason).toBe("everything");
  });

  it("renders a tree with the cursor line last", () => {
    const tree = renderPlanTree(plan({ description: "Orders." }, { max: "2026-10-12T16:00:00Z" }));
    expect(tree.split("\n")).toEqual([
      "raw.app__orders ← app.public.orders",
      "├── description Orders.",
      "├── strategy delete_insert",
      "├── batch one commit per read",
      "└── cursor updated_at from 2026-10-12 16:00:00.000000+00 (destination maximum)",
    ]);
  });
});

describe("plan lines that say what will happen (issue 13 item 7)", () => {
  it("a logged table commits at each checkpoint, not once per read", () => {
    expect(batchLine(plan({}, { extra: { loggedState: true } }))).toBe(
      "batch one commit per checkpoint, and one for the rows after the last",
    );
    expect(batchLine(plan({}))).toBe("batch one commit per read");
    const windowed = plan(
      { cursorStart: "2026-10-01", cursorEnd: "2026-10-03", batchSize: d("1d") },
      { extra: { loggedState: true } },
    );
    expect(batchLine(windowed)).toBe("batch 2 windows of 1day, one commit each, and one per checkpoint");
  });

  it("a table committing along the way that its source reckons at most half a commit is read by a scan first", () => {
    const chunked = "batch commits about every 1 GB, in cursor order, only between distinct cursor values";
    const reckoned = (fullReadBytes: number | undefined) =>
      batchLine(plan({}, { extra: { orderedSource: true, fullReadBytes } }));
    expect(reckoned(353e6)).toBe(
      `${chunked}; reckoned at 353 MB, it is read by a scan first and commits once, unless that read passes 1 GB`,
    );
    expect(reckoned(0)).toContain("reckoned at under 1 MB, it is read by a scan first");
    expect(reckoned(600e6)).toBe(chunked);
    expect(reckoned(undefined)).toBe(chunked);
  });

  it("shows a source's window notes only when the table is read in windows", () => {
    const snapshot = "windows are read in one REPEATABLE READ snapshot";
    const extra = { sourceWindowNotes: [snapshot], sourceNotes: ["an index note"] };
    expect(plan({}, { extra }).notes).toEqual(["an index note"]);
    const windowed = plan({ cursorStart: "2026-10-01", cursorEnd: "2026-10-03", batchSize: d("1d") }, { extra });
    expect(windowed.notes).toEqual(["an index note", snapshot]);
  });

  it("--reload says max_windows_per_run does not apply", () => {
    const settings = { cursorStart: "2026-10-01", cursorEnd: "2026-10-08", batchSize: d("1d"), maxWindowsPerRun: 2 };
    expect(plan(settings, { flags: { reload: true } }).notes).toContain(
      "--reload rebuilds the table in one run over all 7 windows: max_windows_per_run does not apply (the target cannot resume a reload)",
    );
    expect(plan(settings).notes.join("\n")).not.toContain("--reload");
  });
});

describe("cursor-kind rules (SPEC §3, §9), checked before planning reads anything", () => {
  const cases: [TableSettings, string][] = [
    [{ cursorEnd: "now" }, "SL207"],
    [{ batchSize: d("7d"), cursorStart: "1" }, "SL115"],
    [{ lookback: d("1h") }, "SL205"],
    [{ cursorStart: "2026-10-01" }, "SL113"],
    [{ cursorEnd: "not a number" }, "SL113"],
  ];
  for (const [settings, code] of cases) {
    it(`refuses ${JSON.stringify(settings, (_k, v) => (v && typeof v === "object" && "text" in v ? v.text : v))} on an integer cursor with ${code}`, () => {
      // A target maximum exists, so cursor_start would never be reached: it is checked anyway.
      expect(() => plan(settings, { kind: "integer", max: "5" })).toThrowError(expect.objectContaining({ code }));
    });
  }
});
