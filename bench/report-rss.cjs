// Preloaded (`node -r`) into a measured child process: writes its own peak RSS in MB to file
// descriptor 3, which the benchmark opened as a pipe, when it exits, however it exits; so a
// benchmark learns the peak of that one process, not of every child it ever waited for.
const { writeSync } = require("node:fs");

process.on("exit", () => {
  try {
    writeSync(3, `${process.resourceUsage().maxRSS / 1024}\n`);
  } catch {
    // Not started by a benchmark: nobody listens on descriptor 3.
  }
});
