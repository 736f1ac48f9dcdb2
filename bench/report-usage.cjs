// Preloaded (`node -r`) into a measured child process: when it exits, however it exits, writes its
// own peak RSS and CPU time as JSON to file descriptor 3, which the benchmark opened as a pipe; so a
// benchmark learns the figures of that one process, not of every child it ever waited for, and
// the CPU time, which a shared machine inflates less than the wall time.
const { writeSync } = require("node:fs");

process.on("exit", () => {
  const usage = process.resourceUsage();
  try {
    writeSync(3, `${JSON.stringify({ rssMB: usage.maxRSS / 1024, cpuS: (usage.userCPUTime + usage.systemCPUTime) / 1e6 })}\n`);
  } catch {
    // Not started by a benchmark: nobody listens on descriptor 3.
  }
});
