/** A case a suite did not run, and why. */
export interface ReportEntry {
  readonly suite: string;
  readonly case: string;
  /** `skipped`: the connector declared it cannot; `not applicable`: its own capabilities rule the case out. */
  readonly status: "skipped" | "not applicable";
  readonly reason: string;
  /** `value`: the case ran without some of its values. Default `case`. */
  readonly scope?: "case" | "value";
}

/** Collects what one `describe…Conformance` call did not run, and prints it after its last case. */
export class ConformanceReport {
  readonly entries: ReportEntry[] = [];
  /** Cases registered, run or not. */
  cases = 0;

  constructor(readonly suite: string) {}

  add(entry: Omit<ReportEntry, "suite">): void {
    this.entries.push({ suite: this.suite, ...entry });
  }

  /** The report as printed: one header line, then one line per case not run. */
  format(): string {
    const whole = this.entries.filter((e) => e.scope !== "value");
    const skipped = whole.filter((e) => e.status === "skipped").length;
    const notApplicable = whole.length - skipped;
    const values = this.entries.length - whole.length;
    const lines = [
      `sqlload conformance, ${this.suite}: ${this.cases} cases, ${this.cases - whole.length} run, ` +
        `${skipped} skipped, ${notApplicable} not applicable${values > 0 ? `, ${values} values left out` : ""}`,
    ];
    const label = { skipped: "skipped       ", "not applicable": "not applicable" } as const;
    for (const e of this.entries) {
      lines.push(`  ${e.scope === "value" ? "value left out" : label[e.status]}  ${e.case} — ${e.reason}`);
    }
    return lines.join("\n");
  }
}

const reports: ConformanceReport[] = [];

export function newReport(suite: string): ConformanceReport {
  const report = new ConformanceReport(suite);
  reports.push(report);
  return report;
}

/** Every report of this test file so far (one per `describe…Conformance` call). */
export function conformanceReports(): readonly ConformanceReport[] {
  return reports;
}
