import { camelCase, connectionSettingSpecs, tableSettingSpecs } from "./schema.js";

const TYPE_TEXT: Record<string, string> = {
  string: "string",
  "string[]": "list of strings",
  boolean: "boolean",
  integer: "positive integer",
  duration: 'duration ("1h", "7d", "1d12h")',
  cursor: "cursor value",
  batch: 'duration, integer or "none"',
  rate: "table of `rows_per_second`, `requests_per_second`",
};

/** The table-settings reference of docs/configuration.md, from the schema that validates them. */
export function renderConfigDocs(): string {
  const lines = [
    "# Table settings",
    "",
    "<!-- Generated from packages/core/src/config/schema.ts by `node scripts/config-docs.mjs`; do not edit. -->",
    "",
    'Set them on a table in `sqlload.toml` (`[sources.app.tables."public.orders"]`), or in a TypeScript table\'s',
    "options in camelCase; where both set one, the file wins. `sqlload check` validates them before anything connects.",
    "",
    "| key | TypeScript option | type | meaning |",
    "|---|---|---|---|",
  ];
  for (const spec of tableSettingSpecs) {
    const values = spec.values ? `one of ${spec.values.map((v) => `\`"${v}"\``).join(", ")}` : TYPE_TEXT[spec.type];
    lines.push(`| \`${spec.key}\` | \`${camelCase(spec.key)}\` | ${values} | ${spec.description.replaceAll("|", "\\|")} |`);
  }
  lines.push(
    "",
    'Durations are a whole number and a unit (`s m h d w`), combinable: `"1d12h"`. Cursor values are integers,',
    "dates (`2026-10-01`), RFC 3339 timestamps (`2026-10-01T00:00:00Z`; without a zone, UTC) or text, matching the",
    "cursor column's kind.",
    "",
    "# Connection settings",
    "",
    "Every source (`[sources.app]`) and the target (`[target]`) accept these besides their connector's own keys.",
    "A connection that is refused, reset or times out while opening is tried again with exponential backoff and",
    "jitter; when every attempt fails, the error says how many were made and the table is skipped (exit 75).",
    "",
    "| key | type | meaning |",
    "|---|---|---|",
  );
  for (const spec of connectionSettingSpecs) {
    const type = spec.type === "integer" ? "whole number, 0 or more" : TYPE_TEXT[spec.type];
    lines.push(`| \`${spec.key}\` | ${type} | ${spec.description.replaceAll("|", "\\|")} |`);
  }
  lines.push("");
  return lines.join("\n");
}
