import type { LogicalKind } from "@sqlload/core";

const logicalKinds: readonly LogicalKind[] = [
  "boolean",
  "int16",
  "int32",
  "int64",
  "float32",
  "float64",
  "decimal",
  "text",
  "bytes",
  "uuid",
  "json",
  "date",
  "time",
  "timestamp",
  "timestamptz",
  "list",
];

/**
 * What a connector may declare it cannot do, each with the cases that need it. Closed on
 * purpose: a misspelt key would silently run nothing less, so `checkSkips` refuses it. What a
 * connection states itself (`commitModel`, `exactRange`, `orderedReads`, `snapshot`, optional
 * methods like `lockTable` or `firstCursorAtOrAfter`) is not skipped but read, and the cases it
 * rules out are reported as not applicable.
 */
export const capabilityDescriptions = {
  merge: "commit units with strategy `merge` upsert on the primary key",
  replace: "commit units with strategy `replace` build a new table and swap it in at commit",
  concurrentUnits: "units of two tables can be open at once (core loads tables concurrently)",
  oddIdentifiers: "table and column names with quotes, dots, spaces, reserved words and any Unicode",
  oddSchemaNames: "schema names with quotes, dots and spaces",
  typeChange: "ensureTable refuses a changed column type with SL302",
  "float.nan": "float columns keep NaN",
  "float.infinity": "float columns keep ±Infinity",
  "temporal.wideRange": "dates and timestamps outside 1900-01-01 … 2262-04-11",
  "type.nestedList": "lists of lists",
  ...(Object.fromEntries(logicalKinds.map((kind) => [`type.${kind}`, `columns of logical type ${kind}`])) as Record<
    `type.${LogicalKind}`,
    string
  >),
} as const;

export type Capability = keyof typeof capabilityDescriptions;

/** Capabilities a connector skips, each with the reason shown in the report: `{ merge: "no unique keys in this engine" }`. */
export type Skips = Readonly<Partial<Record<Capability, string>>>;

export const capabilities = Object.keys(capabilityDescriptions) as Capability[];

/** Throws when a skip names no known capability or gives no reason. */
export function checkSkips(suite: string, skips: Skips | undefined): void {
  for (const [key, reason] of Object.entries(skips ?? {})) {
    if (!(key in capabilityDescriptions)) {
      throw new TypeError(`${suite}: skips names unknown capability "${key}"; known: ${capabilities.join(", ")}`);
    }
    if (typeof reason !== "string" || reason.trim() === "") {
      throw new TypeError(`${suite}: skip "${key}" needs a reason`);
    }
  }
}

/** The first capability in `needs` the connector skips, with its reason. */
export function skipFor(
  skips: Skips | undefined,
  needs: readonly Capability[],
): { capability: Capability; reason: string } | undefined {
  for (const capability of needs) {
    const reason = skips?.[capability];
    if (reason) return { capability, reason };
  }
  return undefined;
}
