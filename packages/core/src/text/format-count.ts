/**
 * `100,000`, as `toLocaleString("en-US")` writes it. Grouped by hand: the first `toLocaleString`
 * of a process loads ICU's number formats, about 15–20 ms that a run paid at start-up when a
 * connector's setting description or the first line of output used it.
 */
export function formatCount(n: number): string {
  if (!Number.isSafeInteger(n)) return n.toLocaleString("en-US");
  const digits = String(Math.abs(n)).replace(/\B(?=(\d{3})+$)/g, ",");
  return n < 0 ? `-${digits}` : digits;
}
