import { expect, it } from "vitest";

it("loads pg with a working client, and leaves the global navigator as it found it", async () => {
  const before = Object.getOwnPropertyDescriptor(globalThis, "navigator");
  const { pg } = await import("./pg-driver.js");
  expect(typeof pg.Client).toBe("function");
  expect(typeof pg.Pool).toBe("function");
  expect(new pg.Client({ host: "127.0.0.1" }).host).toBe("127.0.0.1");
  expect(Object.getOwnPropertyDescriptor(globalThis, "navigator")).toEqual(before);
});
