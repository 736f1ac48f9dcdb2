/**
 * 12345 at scale 2 → "123.45": a scaled integer (ColumnVector.scaled) as the decimal it stands for,
 * for the errors that name a value a target refuses.
 */
export function formatScaled(value: number, scale: number): string {
  const digits = String(Math.abs(value)).padStart(scale + 1, "0");
  const whole = scale > 0 ? `${digits.slice(0, -scale)}.${digits.slice(-scale)}` : digits;
  return value < 0 ? `-${whole}` : whole;
}
