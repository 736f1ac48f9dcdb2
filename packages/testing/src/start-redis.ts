import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createConnection } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./free-port.js";

export interface RedisInstance {
  /** `redis://127.0.0.1:PORT` */
  readonly url: string;
  readonly port: number;
  stop(): Promise<void>;
}

/**
 * Starts a throwaway `redis-server` (Debian's package; `scripts/ensure-redis.sh` installs it) on a
 * free port, keeping nothing on disk, and stops it with `stop()`.
 */
export async function startRedis(): Promise<RedisInstance> {
  const port = await freePort();
  const dir = await mkdtemp(join(tmpdir(), "sqlload-redis-"));
  const child = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir],
    {
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let output = "";
  child.stdout?.on("data", (d) => (output += d));
  child.stderr?.on("data", (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
  child.on("error", (error) => (output += String(error)));
  const deadline = Date.now() + 10_000;
  while (!(await listening(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`redis-server did not start on port ${port}: ${output.trim() || "no output (is redis-server installed?)"}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    async stop() {
      if (child.exitCode === null) {
        child.kill("SIGTERM");
        await exited;
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: "127.0.0.1" });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}
