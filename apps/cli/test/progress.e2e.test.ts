import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CLI } from "./cli.js";
import { TestProject } from "./project.js";

// The live progress block, seen in a real terminal (tmux), not by snapshotting strings.
const session = `sqlload-progress-${process.pid}`;
const tmux = (...args: string[]) => execFileSync("tmux", args, { encoding: "utf8" });

afterEach(() => {
  try {
    tmux("kill-session", "-t", session);
  } catch {
    // already gone
  }
});

describe("progress on a terminal", () => {
  it("shows a live line per table (rows, rows/s, windows done of total, elapsed), then the result and peak memory", async () => {
    const p = new TestProject(
      { t: { columns: { id: "bigint not null", day: "date" } } },
      `[sources.src.tables.t]\ncursor_column = "day"\ncursor_start = "2025-10-01"\ncursor_end = "2025-10-15"\nbatch_size = "7d"\n`,
    );
    p.rows("t", [
      { id: 1, day: "2025-10-02" },
      { id: 2, day: "2025-10-09" },
    ]);
    // The second window waits 3 s before its rows: long enough to watch the live line.
    const src = join(p.dir, "src.ts");
    writeFileSync(
      src,
      readFileSync(src, "utf8").replace(
        "yield rows(",
        "if (ctx.window?.index === 1) await new Promise((r) => setTimeout(r, 3000));\n    yield rows(",
      ),
    );
    const command = `cd ${JSON.stringify(p.dir)} && env -u NO_COLOR NODE_PATH= ${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} load; echo EXIT=$?; sleep 30`;
    tmux("new-session", "-d", "-s", session, "-x", "120", "-y", "20", command);
    const screens: string[] = [];
    for (let i = 0; i < 150; i++) {
      const screen = tmux("capture-pane", "-p", "-t", session);
      screens.push(screen);
      if (screen.includes("EXIT=")) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const live = screens.find((s) => /⠿ raw\.src__t\s+\d[\d,]* rows\s+\d[\d,]* rows\/s\s+window 1\/2\s+\d+\.\ds/.test(s));
    expect(live, screens.at(-1)).toBeDefined();
    const final = screens.at(-1) as string;
    expect(final).toMatch(/loaded raw\.src__t 2 rows/);
    expect(final).toMatch(/peak memory \d+ MB/);
    expect(final).toContain("EXIT=0");
    // The live line is gone once the table finished: only permanent lines remain.
    expect(final).not.toContain("⠿");
  });
});
