import { expect, it } from "vitest";
import { pgDriver } from "./pg-driver.js";

it("loads pg once, with a working client, and leaves the global navigator as it found it", async () => {
  const before = Object.getOwnPropertyDescriptor(globalThis, "navigator");
  const [pg, again] = await Promise.all([pgDriver(), pgDriver()]);
  expect(again).toBe(pg);
  expect(typeof pg.Client).toBe("function");
  expect(typeof pg.Pool).toBe("function");
  expect(new pg.Client({ host: "127.0.0.1" }).host).toBe("127.0.0.1");
  expect(Object.getOwnPropertyDescriptor(globalThis, "navigator")).toEqual(before);
});
