import type { SourceCapabilities, TargetCapabilities } from "../connector/capabilities.js";
import type { SourceTableInfo } from "../connector/source.js";
import type { WriteStrategy } from "../connector/target.js";

/** How a table's rows reach the target: through sqlload as batches, or read by the target from the source's files. */
export type ReadPath = { readonly kind: "rows"; readonly why?: string } | { readonly kind: "files"; readonly format: string };

/**
 * Whether the target reads the source's files itself (`FileScan`). Only where the result is the
 * row path's exactly: a source that filters its own range (else core drops rows outside it), a
 * table with no logged state (its checkpoints come with rows), and not `merge` (core checks keys
 * in each batch). Everywhere else, and for every source that offers no scans, rows.
 */
export function readPath(input: {
  readonly info: Pick<SourceTableInfo, "fileScan" | "loggedState">;
  readonly source: SourceCapabilities;
  readonly target: TargetCapabilities;
  readonly strategy: WriteStrategy;
}): ReadPath {
  const offer = input.info.fileScan;
  if (!offer) return { kind: "rows" };
  if (!input.target.fileScanEngines.includes(offer.engine)) return { kind: "rows", why: "the target cannot read these files" };
  if (!input.source.exactRange) return { kind: "rows", why: "the source does not filter its range itself" };
  if (input.info.loggedState) return { kind: "rows", why: "the table keeps logged state" };
  if (input.strategy === "merge") return { kind: "rows", why: "merge checks primary keys in every batch" };
  return { kind: "files", format: offer.format };
}

/** The line `plan` shows for a table whose source offers its files. */
export function readPathNote(path: ReadPath): string | undefined {
  if (path.kind === "files") return `read: the target reads the ${path.format} files itself (native path)`;
  return path.why ? `read: rows through sqlload (${path.why})` : undefined;
}
