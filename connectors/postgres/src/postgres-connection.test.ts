import { afterEach, describe, expect, it } from "vitest";
import { connectionConfig, redactSecrets, redactUrl, sslConfig } from "./postgres-connection.js";

describe("redactUrl", () => {
  it.each([
    ["postgresql://user:secret@host:5432/db", "postgresql://user:***@host:5432/db"],
    ["postgres://user:p%40ss@host/db?sslmode=require", "postgres://user:***@host/db?sslmode=require"],
    ["postgresql://user:p@ss/w:rd@host/db", "postgresql://user:***@host/db"],
    ["postgresql://user@host/db", "postgresql://user@host/db"],
    ["postgresql://host/db?user=u&password=secret&sslmode=require", "postgresql://host/db?user=u&password=***&sslmode=require"],
    ["postgresql:///db?host=/var/run/postgresql", "postgresql:///db?host=/var/run/postgresql"],
    ["host=db user=u password=secret dbname=x", "host=db user=u password=*** dbname=x"],
  ])("%s", (url, redacted) => {
    expect(redactUrl(url)).toBe(redacted);
  });

  it("redacts every URL in free text", () => {
    expect(redactSecrets("a postgresql://a:b@h/x and postgres://c:d@i/y.")).toBe(
      "a postgresql://a:***@h/x and postgres://c:***@i/y.",
    );
  });
});

describe("connectionConfig", () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
  });

  it("lets separate keys override the URL's parts and strips ssl parameters libpq-style", () => {
    const { config, sslmode } = connectionConfig({
      url: "postgresql://u:p@h:1/db?sslmode=verify-full&application_name=x",
      host: "other",
      port: 6543,
      database: "Odd db",
      password: "p@ss",
    });
    expect(config.connectionString).toBe("postgresql://u:p%40ss@other:6543/Odd%20db?application_name=x");
    expect(sslmode).toBe("verify-full");
  });

  it("takes sslmode from the options, then the URL, then PGSSLMODE, else prefer", () => {
    process.env.PGSSLMODE = "require";
    expect(connectionConfig({ url: "postgresql://h/db?sslmode=disable", sslmode: "verify-ca" }).sslmode).toBe("verify-ca");
    expect(connectionConfig({ url: "postgresql://h/db?sslmode=disable" }).sslmode).toBe("disable");
    expect(connectionConfig({ url: "postgresql://h/db" }).sslmode).toBe("require");
    delete process.env.PGSSLMODE;
    expect(connectionConfig({}).sslmode).toBe("prefer");
  });

  it("leaves missing parts to the PG* variables (node-postgres reads them)", () => {
    const { config } = connectionConfig({ user: "me" });
    expect(config.user).toBe("me");
    expect(config.host).toBeUndefined();
    expect(config.connectionString).toBeUndefined();
  });

  it("refuses an unknown sslmode and an unparsable URL with SL107, password redacted", () => {
    expect(() => connectionConfig({ url: "postgresql://h/db?sslmode=always" })).toThrow(/sslmode/);
    expect(() => connectionConfig({ url: "not a url with password=hunter2" })).toThrow(/password=\*\*\*/);
  });

  it("maps sslmode to TLS options", () => {
    expect(sslConfig("disable", {})).toBe(false);
    expect(sslConfig("allow", {})).toBe(false);
    expect(sslConfig("require", {})).toEqual({ rejectUnauthorized: false });
    expect(sslConfig("verify-full", {})).toEqual({ rejectUnauthorized: true });
    const verifyCa = sslConfig("verify-ca", {}) || undefined;
    expect(verifyCa?.rejectUnauthorized).toBe(true);
    expect(verifyCa?.checkServerIdentity?.("h", {} as never)).toBeUndefined();
  });
});
