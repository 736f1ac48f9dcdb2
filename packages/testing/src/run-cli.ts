import { type ChildProcess, spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The built `sqlload` binary of this repository (`pnpm build` first). */
export const SQLLOAD_CLI = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "apps", "cli", "bin", "run.js");

export interface CliResult {
  /** The exit code; null when a signal ended the process. */
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface CliOptions {
  readonly cwd: string;
  /** Added to the environment (e.g. SQLLOAD_TEST_CRASH). */
  readonly env?: Readonly<Record<string, string>> | undefined;
  /** Sends SIGKILL after this many milliseconds. */
  readonly killAfterMs?: number | undefined;
}

/** Starts `sqlload ARGS` as a user's shell would: without pnpm's NODE_PATH, without colours. */
export function startSqlload(args: readonly string[], options: CliOptions): ChildProcess {
  return spawn(process.execPath, [SQLLOAD_CLI, ...args], {
    cwd: options.cwd,
    env: { ...process.env, NODE_PATH: "", NO_COLOR: "1", ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
}

/** Runs `sqlload ARGS` to its end and collects its output. */
export function runSqlload(args: readonly string[], options: CliOptions): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = startSqlload(args, options);
    let stdout = "";
    let stderr = "";
    child.stdout?.on("data", (d) => (stdout += d));
    child.stderr?.on("data", (d) => (stderr += d));
    const timer = options.killAfterMs !== undefined ? setTimeout(() => child.kill("SIGKILL"), options.killAfterMs) : undefined;
    child.on("error", reject);
    child.on("close", (code, signal) => {
      if (timer) clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}
