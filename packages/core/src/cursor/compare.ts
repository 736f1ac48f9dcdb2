/**
 * Compares two strings by Unicode code point, the order every side of sqlload uses for text
 * cursors. JavaScript's `<` compares UTF-16 code units, which disagrees with code point order
 * once a character beyond U+FFFF (a surrogate pair, units 0xD800–0xDFFF) meets one in
 * U+E000–U+FFFF: the pair's units are smaller, yet its code point is larger.
 *
 * Returns a negative number, zero or a positive number, like `Array.prototype.sort` expects.
 */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return fixup(x) - fixup(y);
  }
  return a.length - b.length;
}

/**
 * Maps a UTF-16 code unit so that comparing mapped units gives code point order: surrogates move
 * above everything in the BMP, and U+E000–U+FFFF move down to fill the gap. The first differing
 * unit decides, and a surrogate only ever differs from another surrogate (same pair position) or
 * from a BMP character, so this is exact.
 */
function fixup(unit: number): number {
  if (unit >= 0xe000) return unit - 0x800;
  if (unit >= 0xd800) return unit + 0x2000;
  return unit;
}
