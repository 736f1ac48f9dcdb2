import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import databricks from "@databricks/sql";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { trustedCertificates } from "./databricks-tls.js";

// What the driver itself would trust for `customCaCert` (DBSQLClient's connection options, private
// in its types): the shared context must trust exactly that, no more and no less.
function driverTrusts(caCert: string): string[] {
  const client = new databricks.DBSQLClient() as unknown as {
    getConnectionOptions(options: Record<string, unknown>): { ca?: (string | Buffer)[] };
  };
  const ca = client.getConnectionOptions({ host: "h", path: "/p", customCaCert: caCert }).ca ?? [];
  return ca.map((certificate) => certificate.toString());
}

// A certificate of the right shape (the CA of no server here).
const CA = `-----BEGIN CERTIFICATE-----\n${"QUJD".repeat(16)}\n-----END CERTIFICATE-----\n`;

describe("trustedCertificates", () => {
  const saved = process.env.NODE_EXTRA_CA_CERTS;
  const dir = mkdtempSync(join(tmpdir(), "sqlload-databricks-tls-"));
  afterEach(() => {
    if (saved === undefined) delete process.env.NODE_EXTRA_CA_CERTS;
    else process.env.NODE_EXTRA_CA_CERTS = saved;
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("are the driver's: Node's roots, then the CA", () => {
    delete process.env.NODE_EXTRA_CA_CERTS;
    expect(trustedCertificates(CA)).toEqual(driverTrusts(CA));
  });

  it("are the driver's with NODE_EXTRA_CA_CERTS, and with one it cannot read", () => {
    const extra = join(dir, "extra.pem");
    writeFileSync(extra, CA.replace("QUJD", "REVG"));
    process.env.NODE_EXTRA_CA_CERTS = extra;
    expect(trustedCertificates(CA)).toEqual(driverTrusts(CA));
    expect(trustedCertificates(CA)).toHaveLength(driverTrusts(CA).length);
    process.env.NODE_EXTRA_CA_CERTS = join(dir, "missing.pem");
    expect(trustedCertificates(CA)).toEqual(driverTrusts(CA));
  });
});
