import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { CrashPoint } from "./crash-points.js";

/** A fresh copy of the module, read with `SQLLOAD_TEST_CRASH` as given; `process.kill` recorded, not called. */
async function load(spec: string | undefined) {
  vi.resetModules();
  if (spec === undefined) vi.stubEnv("SQLLOAD_TEST_CRASH", undefined as unknown as string);
  else vi.stubEnv("SQLLOAD_TEST_CRASH", spec);
  const kill = vi.spyOn(process, "kill").mockImplementation(() => true);
  const { crashPoint } = await import("./crash-points.js");
  return { crashPoint, kill };
}

afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

describe("crashPoint", () => {
  it("kills with SIGKILL on the n-th pass of the named point only", async () => {
    const { crashPoint, kill } = await load("write:3");
    crashPoint("read");
    crashPoint("commit");
    crashPoint("write");
    crashPoint("read");
    crashPoint("write");
    expect(kill).not.toHaveBeenCalled();
    crashPoint("write");
    expect(kill).toHaveBeenCalledTimes(1);
    expect(kill).toHaveBeenCalledWith(process.pid, "SIGKILL");
    // Only the n-th pass, not the ones after.
    crashPoint("write");
    expect(kill).toHaveBeenCalledTimes(1);
  });

  it("defaults to the first pass when no count is given", async () => {
    const { crashPoint, kill } = await load("ack");
    crashPoint("commit");
    expect(kill).not.toHaveBeenCalled();
    crashPoint("ack");
    expect(kill).toHaveBeenCalledWith(process.pid, "SIGKILL");
  });

  it("unset, never kills", async () => {
    const { crashPoint, kill } = await load(undefined);
    for (const point of ["read", "write", "commit", "ack"] as CrashPoint[]) for (let i = 0; i < 5; i++) crashPoint(point);
    expect(kill).not.toHaveBeenCalled();
  });

  it("reads the variable once, when the module loads", async () => {
    const { crashPoint, kill } = await load(undefined);
    vi.stubEnv("SQLLOAD_TEST_CRASH", "read:1");
    crashPoint("read");
    expect(kill).not.toHaveBeenCalled();
  });
});

describe("crashPoint in a real process (the built package)", () => {
  const built = fileURLToPath(new URL("../../dist/index.js", import.meta.url));
  const run = (spec: string | undefined) => {
    const script = `import { crashPoint } from ${JSON.stringify(built)};
for (const p of ["read", "write", "read", "commit", "read"]) { process.stdout.write(p + " "); crashPoint(p); }
process.stdout.write("done");`;
    const env = { ...process.env };
    delete env.SQLLOAD_TEST_CRASH;
    if (spec) env.SQLLOAD_TEST_CRASH = spec;
    return spawnSync(process.execPath, ["--input-type=module", "-e", script], { env, encoding: "utf8" });
  };

  it("dies by SIGKILL at the n-th pass, before anything after it", () => {
    const child = run("read:2");
    expect(child.signal).toBe("SIGKILL");
    expect(child.stdout).toBe("read write read ");
  });

  it("runs to the end when unset, or when the point is never passed n times", () => {
    for (const spec of [undefined, "read:4", "ack:1"]) {
      const child = run(spec);
      expect(child.signal).toBeNull();
      expect(child.status).toBe(0);
      expect(child.stdout).toBe("read write read commit read done");
    }
  });
});
