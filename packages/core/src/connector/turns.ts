/**
 * Work that must not overlap, run one piece at a time in the order it was given: each starts once
 * the one before has settled, whether it succeeded or failed. For a connector whose engine takes
 * one statement at a time on a handle that several callers share (DuckDB's DDL, chdb).
 */
export class Turns {
  private last: Promise<unknown> = Promise.resolve();

  run<T>(work: () => Promise<T>): Promise<T> {
    const result = this.last.then(work);
    this.last = result.catch(() => undefined);
    return result;
  }

  /** Settles once everything given so far has. */
  async idle(): Promise<void> {
    await this.last;
  }
}
