/**
 * Capability flags. Each has a documented default in the base objects below, so a flag added
 * later never breaks a connector written before it: spread the base and override what differs.
 */
export interface TargetCapabilities {
  /**
   * `transactional`: each commit unit is one transaction, visible at `commit`.
   * `staged`: `commit` lands a unit in staging; `publish` makes staged units visible together.
   * `data-then-log`: each unit's data lands in one commit of its own and its run-log records right
   * after, so a crash between the two leaves the data ahead of the log (Databricks without
   * multi-statement transactions). Logged-state tables cannot stay exactly once on such a target.
   * Default `transactional`.
   */
  readonly commitModel: "transactional" | "staged" | "data-then-log";
  /** `deleteRange` and `maxCursor` compare text by code point. Default true; a target that cannot must say so. */
  readonly codePointText: boolean;
}

export const defaultTargetCapabilities: TargetCapabilities = {
  commitModel: "transactional",
  codePointText: true,
};

export interface SourceCapabilities {
  /** Reads return only rows inside the requested range, so the engine need not filter. Default false. */
  readonly exactRange: boolean;
  /** Reads can be ordered by cursor and yield `commit-point`s between distinct values. Default false. */
  readonly orderedReads: boolean;
  /** All reads of one opened table see one snapshot. Default false. */
  readonly snapshot: boolean;
}

export const defaultSourceCapabilities: SourceCapabilities = {
  exactRange: false,
  orderedReads: false,
  snapshot: false,
};
