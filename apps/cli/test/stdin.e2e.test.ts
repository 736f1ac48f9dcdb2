import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { CLI } from "./cli.js";
import { TestProject } from "./project.js";

const ROOT = join(import.meta.dirname, "..");

/** `sqlload ARGS` with `input` on its standard input, as a scheduler or a shell pipe gives it. */
function piped(
  args: readonly string[],
  cwd: string,
  input: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd,
      env: { ...process.env, NODE_PATH: "", NO_COLOR: "1" },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

// oclif reads an argument left off the command line from standard input when that is not a
// terminal: `echo nosuch | sqlload load` tried to load a table `nosuch` (SL114), and a scheduler's
// open stdin cost every run a 10 ms wait for it.
describe("standard input is not read for arguments", () => {
  it("a load and a plan given text on stdin but no tables take every table", async () => {
    const project = new TestProject({ a: { columns: { id: "bigint" } }, b: { columns: { id: "bigint" } } });
    project.rows("a", [{ id: 1 }]).rows("b", [{ id: 2 }]);
    const plan = await piped(["plan"], project.dir, "nosuch\n");
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain("raw.src__a");
    expect(plan.stdout).toContain("raw.src__b");
    const load = await piped(["load"], project.dir, "a\n");
    expect(load.code, load.stderr).toBe(0);
    expect(load.stdout).toContain("done: 2 of 2 tables loaded");
  });

  it("no command's argument reads it", async () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, "oclif.manifest.json"), "utf8")) as {
      commands: Record<string, { relativePath: string[] }>;
    };
    const unread: string[] = [];
    for (const [id, entry] of Object.entries(manifest.commands)) {
      const command = (await import(pathToFileURL(join(ROOT, ...entry.relativePath)).href)).default as {
        args?: Record<string, { ignoreStdin?: boolean }>;
      };
      for (const [name, arg] of Object.entries(command.args ?? {})) if (arg.ignoreStdin !== true) unread.push(`${id} ${name}`);
    }
    expect(unread).toEqual([]);
    expect(Object.keys(manifest.commands)).toContain("load");
  });
});
