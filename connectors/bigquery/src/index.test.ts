import { describe, expect, it } from "vitest";
import connector from "./index.js";

describe("the BigQuery connector's settings", () => {
  const open = (options: Record<string, unknown>) => {
    if (!connector.target) throw new Error("no target");
    return connector.target({ options, projectDir: "/tmp", schema: "raw" });
  };

  it("is found as `bigquery` and declares its keys, keys and tokens secret", () => {
    expect(connector.manifest.name).toBe("bigquery");
    const keys = connector.configSchema.target ?? [];
    expect(keys.filter((k) => k.secret).map((k) => k.key)).toEqual(["keyfile", "access_token"]);
    expect(keys.find((k) => k.key === "project")?.required).toBe(true);
  });

  it("needs a project", async () => {
    await expect(open({})).rejects.toMatchObject({ code: "SL105" });
  });

  it("refuses labels BigQuery would refuse", async () => {
    await expect(open({ project: "p", labels: { Team: "data" } })).rejects.toMatchObject({ code: "SL103" });
    await expect(open({ project: "p", labels: { team: "Data Team" } })).rejects.toMatchObject({ code: "SL103" });
    await expect(open({ project: "p", labels: ["team"] })).rejects.toMatchObject({ code: "SL103" });
    await expect(open({ project: "p", labels: { team: "data", env: "" } })).resolves.toBeDefined();
  });
});
