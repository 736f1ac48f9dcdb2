const URL_PASSWORD = /([a-z][a-z0-9+.-]*:\/\/[^:/?#\s@]+:)([^@\s/]+)@/gi;

/**
 * Removes secrets from text before it is printed: passwords inside URLs
 * (`postgres://user:secret@host` → `postgres://user:***@host`) and every value a connector's
 * schema marks secret (a URL among them loses only its password, so it stays readable).
 */
export function redact(text: string, secrets: readonly string[] = []): string {
  let out = text.replace(URL_PASSWORD, "$1***@");
  for (const secret of secrets) {
    const password = /:\/\/[^:/?#\s@]+:([^@\s/]+)@/.exec(secret)?.[1];
    const hidden = password ?? (/^[a-z][a-z0-9+.-]*:\/\//i.test(secret) ? undefined : secret);
    // Very short values would blank out ordinary words.
    if (hidden && hidden.length >= 4) out = out.split(hidden).join("***");
  }
  return out;
}
