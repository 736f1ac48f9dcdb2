/**
 * Imported by pg-driver.ts just before `pg`, so that `pg` loads with its runtime check made cheap.
 * On load, `pg` asks whether it runs in a Cloudflare Worker: it reads `navigator.userAgent`, and
 * where there is no `navigator` (Node 20) it constructs a fetch `Response`, which makes Node compile
 * its whole fetch implementation (undici), about half of `pg`'s load time (75 ms of CPU against
 * 40 ms), paid by every run before its first query. Node 21 and later define `navigator.userAgent`
 * as `Node.js/<version>`; on Node 20 the same answer is put in place here and removed by
 * pg-driver.ts once `pg` has loaded. A module of its own because imports are evaluated in order,
 * before the importing module's body: in Node and in the package's bundle alike.
 */
export const lentNavigator = !("navigator" in globalThis);
if (lentNavigator) {
  Object.defineProperty(globalThis, "navigator", {
    value: { userAgent: `Node.js/${process.versions.node}` },
    configurable: true,
  });
}
