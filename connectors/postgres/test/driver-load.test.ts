import { execFileSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { expect, it } from "vitest";

// What a user's process loads: the built package (pnpm build), whose bundle carries `pg` inside. A
// bundler may order modules differently from the sources, so this runs the bundle itself: `pg`
// must load only when a connection is first made, and never pull in Node's fetch implementation
// (undici) for its Cloudflare check (see src/pg-driver.ts).
const here = dirname(fileURLToPath(import.meta.url));
const dist = pathToFileURL(join(here, "..", "dist", "index.js")).href;
const core = pathToFileURL(join(here, "..", "..", "..", "packages", "core", "dist", "index.js")).href;

it("loads pg on the first connection, without Node's fetch, and leaves no navigator behind", () => {
  const script = `
    const undici = () => process.moduleLoadList.some((m) => m.includes("undici"));
    const { default: postgres } = await import(${JSON.stringify(dist)});
    const { parseTableKey } = await import(${JSON.stringify(core)});
    const afterImport = undici();
    const source = await postgres.source({ options: { url: "postgresql://postgres@127.0.0.1:9/none", connect_timeout: 2 }, projectDir: ".", sourceName: "s" });
    const error = await source.describeTable({ table: parseTableKey("public.t"), options: {} }).then(() => null, (e) => e.code);
    console.log(JSON.stringify({ afterImport, error, afterConnect: undici(), navigator: "navigator" in globalThis }));
  `;
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
  expect(JSON.parse(out)).toEqual({ afterImport: false, error: "SL304", afterConnect: false, navigator: false });
});
