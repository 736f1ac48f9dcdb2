/**
 * Test-only crash injection: `SQLLOAD_TEST_CRASH=<point>:<n>` kills the process with SIGKILL the
 * n-th time the runner passes `<point>` — `read` (a batch read, not yet written), `write` (rows
 * written, not yet committed), `commit` (right after a commit) or `ack` (a queue worker's pass
 * committed, its job not yet acknowledged). The crash tests use it to die
 * at exact instants as well as random ones; unset, it costs one comparison.
 */
export type CrashPoint = "read" | "write" | "commit" | "ack";

const spec = process.env.SQLLOAD_TEST_CRASH;
const [target, nth] = spec ? [spec.split(":")[0], Number(spec.split(":")[1] ?? 1)] : [undefined, 0];
let seen = 0;

export function crashPoint(point: CrashPoint): void {
  if (point !== target) return;
  seen++;
  if (seen === nth) process.kill(process.pid, "SIGKILL");
}
