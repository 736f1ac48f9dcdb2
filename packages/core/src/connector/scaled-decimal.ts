/**
 * 12345 at scale 2 → "123.45": a scaled integer (ColumnVector.scaled) as the decimal it stands for,
 * for the errors that name a value a target refuses.
 */
export function formatScaled(value: number, scale: number): string {
  const digits = String(Math.abs(value)).padStart(scale + 1, "0");
  const whole = scale > 0 ? `${digits.slice(0, -scale)}.${digits.slice(-scale)}` : digits;
  return value < 0 ? `-${whole}` : whole;
}

const POW10 = Array.from({ length: 16 }, (_, i) => 10 ** i);
/** Digits a double holds exactly (10^15 < 2^53): up to this many, a scaled decimal needs no bigint. */
const EXACT_DIGITS = 15;

/**
 * `"-12.34"` at scale 2 → `-1234`, the decimal text's value times 10^scale as an exact double; NaN
 * when it is not plain digits (an optional sign, at most one point, no spaces or exponent), when a
 * digit past `scale` is not zero (rounding: the caller's exact path refuses it, naming the value), or
 * when it has more digits than a double holds exactly (the caller's bigint path decides). Targets
 * that store decimals as scaled integers parse text with it before reaching for a bigint.
 */
export function parseScaled(text: string, scale: number): number {
  const n = text.length;
  let i = 0;
  let negative = false;
  const first = text.charCodeAt(0);
  if (first === 45 || first === 43) {
    negative = first === 45;
    i = 1;
  }
  let value = 0;
  let digits = 0;
  let fraction = -1;
  for (; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 46 && fraction < 0) {
      fraction = 0;
      continue;
    }
    if (c < 48 || c > 57) return Number.NaN;
    if (fraction >= 0) {
      if (fraction === scale) {
        if (c !== 48) return Number.NaN;
        continue;
      }
      fraction++;
    }
    value = value * 10 + (c - 48);
    if (++digits > EXACT_DIGITS) return Number.NaN;
  }
  if (digits === 0) return Number.NaN;
  const pad = scale - Math.max(fraction, 0);
  if (digits + pad > EXACT_DIGITS) return Number.NaN;
  value *= POW10[pad] as number;
  return negative ? -value : value;
}
