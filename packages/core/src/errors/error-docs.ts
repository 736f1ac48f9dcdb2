import { errorCodes } from "./codes.js";

const SECTIONS: [string, string][] = [
  ["SL1", "Project configuration (found by `sqlload check`, before anything connects)"],
  ["SL2", "Planning (needs the source's or target's metadata)"],
  ["SL3", "Loading"],
  ["SL4", "Connectors"],
  ["SL5", "Logged state and the run log"],
  ["SL9", "Internal"],
];

/** The text of docs/errors.md: every error code with its title, hint and whether it is retryable. */
export function renderErrorDocs(): string {
  const lines = [
    "# Error codes",
    "",
    "<!-- Generated from packages/core/src/errors/codes.ts by `node scripts/error-docs.mjs`; do not edit. -->",
    "",
    "Every error sqlload raises on purpose has a stable code. Messages name the table, key and file:line where",
    "they apply; the hint says what to do. Retryable errors leave the table unchanged and make `load` exit 75.",
    "",
  ];
  for (const [prefix, title] of SECTIONS) {
    const entries = Object.entries(errorCodes).filter(([code]) => code.startsWith(prefix));
    if (entries.length === 0) continue;
    lines.push(`## ${title}`, "", "| code | what | what to do |", "|---|---|---|");
    for (const [code, info] of entries) {
      const retry = "retryable" in info && info.retryable ? " (retryable)" : "";
      lines.push(`| ${code} | ${info.title}${retry} | ${info.hint.replaceAll("|", "\\|")} |`);
    }
    lines.push("");
  }
  return lines.join("\n");
}
