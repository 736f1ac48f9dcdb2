import { SqlloadError } from "../errors/sqlload-error.js";

/**
 * Replaces `${VAR}` and `${VAR:-default}` in a string from `env`. `$${` escapes a literal `${`.
 * Throws SL109 naming the variable when it is unset and has no default.
 */
export function interpolate(
  text: string,
  env: Readonly<Record<string, string | undefined>>,
  where: () => { file: string; line?: number; key?: string },
): string {
  return text.replace(/\$?\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (match, name: string, fallback: string | undefined) => {
    if (match.startsWith("$$")) return match.slice(1);
    const value = env[name];
    if (value !== undefined && value !== "") return value;
    if (fallback !== undefined) return fallback;
    throw new SqlloadError("SL109", `environment variable ${name} is not set`, {
      location: where(),
      hint: `Set ${name} (in the environment or in .env beside sqlload.toml), or give a default: \`\${${name}:-value}\`.`,
    });
  });
}
