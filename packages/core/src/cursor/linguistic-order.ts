import { compareCodePoints } from "./compare.js";

/** How many of a text cursor's highest keys a source samples to check their order. */
export const LINGUISTIC_SAMPLE = 20;

/**
 * The warning `plan` shows when a text cursor's keys rise only in a linguistic order.
 *
 * `keys` are the source's highest keys in ascending order *under the source's own collation*
 * (at most LINGUISTIC_SAMPLE, NULLs left out). Runs continue from the code point maximum, so when
 * those keys are not also increasing by code point (`apple1, Banana2, cherry3, Date4`: `Date4`
 * sorts below `cherry3`), new keys the collation puts at the top can land below the maximum and
 * are never read. Undefined when the keys agree.
 */
export function linguisticOrderWarning(column: string, keys: readonly string[]): string | undefined {
  for (let i = 1; i < keys.length; i++) {
    const before = keys[i - 1]!;
    const after = keys[i]!;
    if (compareCodePoints(before, after) > 0) {
      return (
        `warning: the text cursor ${column} rises in the source's collation but not in code point order ` +
        `(${quote(before)} sorts before ${quote(after)} in the source, after it by code point): runs continue ` +
        "from the code point maximum, so new keys that sort below it are never read; use keys that increase " +
        "in either order (zero-padded numbers, ULIDs, ISO 8601 timestamps)"
      );
    }
  }
  return undefined;
}

function quote(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}
