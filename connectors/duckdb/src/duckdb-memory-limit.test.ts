import { describe, expect, it } from "vitest";
import { switchedLimit } from "./duckdb-memory-limit.js";

/** A limit whose `SET`s are recorded, each settling when the test lets it. */
function recorded(fail: (limit: string) => boolean = () => false) {
  const sets: string[] = [];
  const limit = switchedLimit("256MB", "32MB", async (value) => {
    await new Promise((resolve) => setTimeout(resolve, 1));
    if (fail(value)) throw new Error(`cannot set ${value}`);
    sets.push(value);
  });
  return { limit, sets };
}

describe("switchedLimit", () => {
  it("raises once for overlapping holders and lowers when the last lets go", async () => {
    const { limit, sets } = recorded();
    const [a, b] = await Promise.all([limit.hold(), limit.hold()]);
    expect(sets).toEqual(["256MB"]);
    await a();
    await a(); // a second release of the same hold changes nothing
    expect(sets).toEqual(["256MB"]);
    await b();
    expect(sets).toEqual(["256MB", "32MB"]);
  });

  it("does not lower under a holder who came while the last one was letting go", async () => {
    const { limit, sets } = recorded();
    const first = await limit.hold();
    const [, second] = await Promise.all([first(), limit.hold()]);
    expect(sets).toEqual(["256MB"]);
    await second();
    expect(sets).toEqual(["256MB", "32MB"]);
  });

  it("keeps the higher limit when lowering fails, and lowers at the next release", async () => {
    let refuse = true;
    const { limit, sets } = recorded((value) => value === "32MB" && refuse);
    await (await limit.hold())();
    expect(sets).toEqual(["256MB"]);
    refuse = false;
    await (await limit.hold())();
    expect(sets).toEqual(["256MB", "32MB"]);
  });

  it("reports a failure to raise to the holder, who then holds nothing", async () => {
    let refuse = true;
    const { limit, sets } = recorded((value) => value === "256MB" && refuse);
    await expect(limit.hold()).rejects.toThrow("cannot set 256MB");
    refuse = false;
    const release = await limit.hold();
    await release();
    expect(sets).toEqual(["256MB", "32MB"]);
  });
});
