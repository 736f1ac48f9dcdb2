import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { processAlive } from "./process-alive.js";

describe("processAlive", () => {
  it("knows this process runs and an exited one does not", () => {
    expect(processAlive(process.pid)).toBe(true);
    const exited = Number(
      spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" }).stdout,
    );
    expect(processAlive(exited)).toBe(false);
  });
});
