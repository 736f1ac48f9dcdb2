import { describe, expect, it } from "vitest";
import { Turns } from "./turns.js";

describe("Turns", () => {
  it("runs work one piece at a time, in the order given, past a failure", async () => {
    const turns = new Turns();
    const log: string[] = [];
    const step = (name: string, ms: number, fail = false) =>
      turns.run(async () => {
        log.push(`${name} start`);
        await new Promise((resolve) => setTimeout(resolve, ms));
        log.push(`${name} end`);
        if (fail) throw new Error(name);
        return name;
      });
    const a = step("a", 20);
    const b = step("b", 1, true);
    const c = step("c", 1);
    await expect(a).resolves.toBe("a");
    await expect(b).rejects.toThrow("b");
    await expect(c).resolves.toBe("c");
    expect(log).toEqual(["a start", "a end", "b start", "b end", "c start", "c end"]);
  });

  it("is idle once everything given so far has settled", async () => {
    const turns = new Turns();
    let done = false;
    void turns.run(async () => {
      await new Promise((resolve) => setTimeout(resolve, 10));
      done = true;
    });
    await turns.idle();
    expect(done).toBe(true);
  });
});
