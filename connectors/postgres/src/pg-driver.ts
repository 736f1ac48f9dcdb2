import { createRequire } from "node:module";
import type * as Pg from "pg";

/**
 * The `pg` driver, loaded with its runtime check made cheap. On load, `pg` asks whether it runs in
 * a Cloudflare Worker: it reads `navigator.userAgent`, and where there is no `navigator` (Node 20)
 * it constructs a fetch `Response`, which makes Node compile its whole fetch implementation
 * (undici), about half of `pg`'s load time (75 ms of CPU against 40 ms), paid by every run before
 * its first query. Node 21 and later define `navigator.userAgent` as `Node.js/<version>`; on Node
 * 20 the same answer is put in place for the duration of the `require` and removed after.
 */
function loadPg(): typeof Pg {
  const require = createRequire(import.meta.url);
  if ("navigator" in globalThis) return require("pg") as typeof Pg;
  Object.defineProperty(globalThis, "navigator", {
    value: { userAgent: `Node.js/${process.versions.node}` },
    configurable: true,
  });
  try {
    return require("pg") as typeof Pg;
  } finally {
    delete (globalThis as { navigator?: unknown }).navigator;
  }
}

export const pg = loadPg();
