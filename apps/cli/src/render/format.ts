/** `0.4s`, `12s`, `3m05s` */
export function formatSeconds(seconds: number): string {
  if (seconds < 10) return `${seconds.toFixed(1)}s`;
  if (seconds < 60) return `${Math.round(seconds)}s`;
  const m = Math.floor(seconds / 60);
  return `${m}m${String(Math.round(seconds % 60)).padStart(2, "0")}s`;
}
