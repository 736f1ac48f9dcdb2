import { readFileSync } from "node:fs";
import { Agent } from "node:https";
import { createSecureContext, rootCertificates, type SecureContext } from "node:tls";

/**
 * What a session trusts when the target names its warehouse's CA (`ca_cert`): what the driver
 * (`@databricks/sql` 2.1) trusts for `customCaCert`, which adds to the usual roots rather than
 * replacing them: Node's own, then those of NODE_EXTRA_CA_CERTS (which Node itself ignores once a
 * `ca` is given), then the warehouse's.
 */
export function trustedCertificates(caCert: string): string[] {
  const extraPath = process.env.NODE_EXTRA_CA_CERTS;
  let extra: string[] = [];
  if (extraPath) {
    try {
      extra = [readFileSync(extraPath, "utf8")];
    } catch {
      // Node ignores an unreadable NODE_EXTRA_CA_CERTS, and so does the driver.
    }
  }
  return [...rootCertificates, ...extra, caCert];
}

const contexts = new Map<string, SecureContext>();

/**
 * One TLS context per `ca_cert` for the whole process. The driver gives its HTTPS agent the
 * certificates as its `ca` option, and Node then parses every one of them (about 150 roots, or
 * 300 with NODE_EXTRA_CA_CERTS) into a new context for every socket, and joins them into the key
 * it looks sockets up by on every request; a context made once and handed to the agent does
 * neither (the Databricks conformance suite 90 s → 41 s: bench/README.md, 2026-12-07 17:18 UTC on).
 */
function contextFor(caCert: string): SecureContext {
  const key = `${process.env.NODE_EXTRA_CA_CERTS ?? ""}\0${caCert}`;
  let context = contexts.get(key);
  if (!context) {
    context = createSecureContext({ ca: trustedCertificates(caCert), minVersion: "TLSv1.2" });
    contexts.set(key, context);
  }
  return context;
}

/**
 * The agent a session sends its requests through when the target names its warehouse's CA: the
 * driver's own settings (kept-alive sockets, TLS 1.2 at least, the server's certificate checked)
 * with the shared context instead of the certificates themselves.
 */
export function trustingAgent(caCert: string, socketTimeoutMs: number): Agent {
  return new Agent({
    keepAlive: true,
    keepAliveMsecs: 10_000,
    maxSockets: Number.POSITIVE_INFINITY,
    timeout: socketTimeoutMs,
    minVersion: "TLSv1.2",
    rejectUnauthorized: true,
    secureContext: contextFor(caCert),
  });
}
