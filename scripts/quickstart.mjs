#!/usr/bin/env node
// `pnpm quickstart`: creates a fresh quickstart project in .quickstart/ and walks through it with
// the built CLI: plan, load, load again (incremental), plan again. No server needed.
import { execFileSync } from "node:child_process";
import { rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const cli = join(root, "apps", "cli", "bin", "run.js");
const project = join(root, ".quickstart");
const sqlload = (...args) => {
  console.log(`\n$ sqlload ${args.join(" ")}`);
  execFileSync(process.execPath, [cli, ...args], { cwd: project, stdio: "inherit" });
};

rmSync(project, { recursive: true, force: true });
execFileSync(process.execPath, [cli, "init", project], { stdio: "inherit" });
sqlload("check");
sqlload("plan");
sqlload("load");
sqlload("load");
sqlload("plan");
console.log(`\nThe data is in ${join(project, "warehouse.duckdb")}, table raw.shop__orders.`);
