import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface SelfSignedCertificate {
  readonly key: string;
  readonly cert: string;
}

/**
 * A throwaway certificate for 127.0.0.1 and localhost, made with `openssl` at test time: the
 * driver speaks HTTPS only, and trusts it when given as `customCaCert`. Nothing is shipped or kept.
 */
export function selfSignedCertificate(): SelfSignedCertificate {
  const dir = mkdtempSync(join(tmpdir(), "sqlload-databricks-tls-"));
  try {
    const key = join(dir, "key.pem");
    const cert = join(dir, "cert.pem");
    execFileSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        key,
        "-out",
        cert,
        "-days",
        "2",
        "-subj",
        "/CN=127.0.0.1",
        "-addext",
        "subjectAltName=IP:127.0.0.1,DNS:localhost",
        "-addext",
        "basicConstraints=critical,CA:TRUE",
      ],
      { stdio: "ignore" },
    );
    return { key: readFileSync(key, "utf8"), cert: readFileSync(cert, "utf8") };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
