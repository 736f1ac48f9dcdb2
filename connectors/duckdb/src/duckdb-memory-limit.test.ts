import { describe, expect, it } from "vitest";
import { switchedLimit } from "./duckdb-memory-limit.js";

/** A limit of 32 MB (a reserve of 24 MB and the needs) up to 256 MB whose `SET`s are recorded; `fail` refuses some. */
function recorded(fail: (limit: string) => boolean = () => false) {
  const sets: string[] = [];
  const limit = switchedLimit({ full: 256, base: 32, reserve: 24 }, async (value) => {
    await new Promise((resolve) => setTimeout(resolve, 1));
    if (fail(value)) throw new Error(`cannot set ${value}`);
    sets.push(value);
  });
  return { limit, sets };
}

describe("switchedLimit", () => {
  it("adds each holder's need to the reserve, never under the base, and goes back to it when the last lets go", async () => {
    const { limit, sets } = recorded();
    const a = await limit.hold(5);
    expect(sets).toEqual([]); // 24 + 5 fits in 32
    const b = await limit.hold(121);
    expect(sets).toEqual(["150MB"]);
    await b();
    await b(); // a second release of the same hold changes nothing
    expect(sets).toEqual(["150MB", "32MB"]);
    const c = await limit.hold(5);
    expect(sets).toEqual(["150MB", "32MB", "34MB"]);
    await a();
    await c();
    expect(sets).toEqual(["150MB", "32MB", "34MB", "32MB"]);
  });

  it("gives the full limit to a holder who needs it, and never more than it to needs that add up past it", async () => {
    const { limit, sets } = recorded();
    const needs = await Promise.all([limit.hold(200), limit.hold(100)]);
    expect(sets).toEqual(["256MB"]);
    const full = await limit.hold("full");
    const small = await limit.hold(1);
    expect(sets).toEqual(["256MB"]);
    for (const release of needs) await release();
    expect(sets).toEqual(["256MB"]);
    await full();
    expect(sets).toEqual(["256MB", "32MB"]);
    await small();
    expect(sets).toEqual(["256MB", "32MB"]);
  });

  it("does not lower under a holder who came while the last one was letting go", async () => {
    const { limit, sets } = recorded();
    const first = await limit.hold("full");
    const [, second] = await Promise.all([first(), limit.hold("full")]);
    expect(sets).toEqual(["256MB"]);
    await second();
    expect(sets).toEqual(["256MB", "32MB"]);
  });

  it("keeps the higher limit when lowering fails, and lowers at the next release", async () => {
    let refuse = true;
    const { limit, sets } = recorded((value) => value === "32MB" && refuse);
    await (await limit.hold("full"))();
    expect(sets).toEqual(["256MB"]);
    refuse = false;
    await (await limit.hold(40))();
    expect(sets).toEqual(["256MB", "64MB", "32MB"]);
  });

  it("reports a failure to raise to the holder, who then holds nothing", async () => {
    let refuse = true;
    const { limit, sets } = recorded((value) => value === "256MB" && refuse);
    await expect(limit.hold("full")).rejects.toThrow("cannot set 256MB");
    refuse = false;
    const release = await limit.hold("full");
    await release();
    expect(sets).toEqual(["256MB", "32MB"]);
  });
});
