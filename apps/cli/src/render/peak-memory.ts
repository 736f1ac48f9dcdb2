/** The process's peak resident memory so far, as `123 MB`. */
export function peakMemory(): string {
  // maxRSS is in kilobytes.
  return `${Math.round(process.resourceUsage().maxRSS / 1024)} MB`;
}
