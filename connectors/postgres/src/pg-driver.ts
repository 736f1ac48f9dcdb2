/** What `import("pg")` gives: the driver's CommonJS exports. */
type Driver = typeof import("pg").default;

let driver: Promise<Driver> | undefined;

/**
 * The `pg` driver, loaded on first use (a run that never connects to Postgres never loads it) and
 * with its runtime check made cheap. Its JavaScript, with its dependencies, is built into this
 * package (`sqlloadBuild` in package.json) as dist/vendor/pg.cjs, which this import loads through
 * V8's code cache (scripts/bundle-dist.mjs).
 *
 * On load, `pg` asks whether it runs in a Cloudflare Worker: it reads `navigator.userAgent`, and
 * where there is no `navigator` (Node 20) it constructs a fetch `Response`, which makes Node compile
 * its whole fetch implementation (undici), about half of `pg`'s load time (75 ms of CPU against
 * 40 ms), paid by every run before its first query. Node 21 and later define `navigator.userAgent`
 * as `Node.js/<version>`; on Node 20 the same answer is put in place while `pg` loads and removed
 * after. The load is an `import()`, evaluated exactly here, so no bundler can move `pg`'s check
 * before the answer is in place.
 */
export function pgDriver(): Promise<Driver> {
  driver ??= load();
  return driver;
}

async function load(): Promise<Driver> {
  const lent = !("navigator" in globalThis);
  if (lent) {
    Object.defineProperty(globalThis, "navigator", {
      value: { userAgent: `Node.js/${process.versions.node}` },
      configurable: true,
    });
  }
  try {
    return (await import("pg")).default;
  } finally {
    if (lent) delete (globalThis as { navigator?: unknown }).navigator;
  }
}
