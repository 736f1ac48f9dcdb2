import { SqlloadError } from "../errors/sqlload-error.js";
import { commitModels, type SourceCapabilities, type TargetCapabilities } from "./capabilities.js";
import type { SourceTableReader } from "./source.js";
import type { TargetConnection, WriteStrategy } from "./target.js";

const strategies: readonly WriteStrategy[] = ["append", "delete_insert", "merge", "replace"];

/** The optional methods of a target that a capability stands for. */
type TargetMethods = Pick<
  TargetConnection,
  "publish" | "discard" | "lockTable" | "reloadBuildTable" | "swapReloadBuild" | "dropReloadBuild"
>;

const reloadMethods = ["reloadBuildTable", "swapReloadBuild", "dropReloadBuild"] as const;

/**
 * Where a target's declaration and its methods disagree, one sentence each; empty when they agree.
 * A staged target must publish and discard (and nothing else may, so a transactional target's
 * stray `publish` is not mistaken for a contract); `locking` stands for `lockTable`.
 */
export function targetCapabilityProblems(capabilities: TargetCapabilities, methods: TargetMethods): string[] {
  const problems = declarationProblems(capabilities);
  const model = capabilities.commitModel;
  const staged = model === "staged";
  for (const name of ["publish", "discard"] as const) {
    const has = typeof methods[name] === "function";
    if (staged && !has) problems.push(`commitModel is "staged" but it has no ${name}()`);
    if (!staged && has) problems.push(`it has ${name}() but commitModel is "${model}", not "staged"`);
  }
  const locks = typeof methods.lockTable === "function";
  if (capabilities.locking !== locks) {
    problems.push(locks ? "it has lockTable() but declares locking: false" : "it declares locking: true but has no lockTable()");
  }
  // Only a declared capability is a contract: a target may have the methods and leave them unused.
  if (capabilities.resumableReload) {
    for (const name of reloadMethods) {
      if (typeof methods[name] !== "function") problems.push(`it declares resumableReload: true but has no ${name}()`);
    }
  }
  return problems;
}

/** What is wrong with a declaration on its own, before any connection has methods to compare. */
export function declarationProblems(capabilities: TargetCapabilities): string[] {
  const problems: string[] = [];
  const model = capabilities.commitModel;
  if (!commitModels.includes(model)) problems.push(`commitModel "${String(model)}" is none of ${commitModels.join(", ")}`);
  const declared = capabilities.writeStrategies;
  if (!Array.isArray(declared) || declared.length === 0) problems.push("writeStrategies lists no strategy");
  else for (const s of declared) if (!strategies.includes(s)) problems.push(`writeStrategies names unknown strategy "${s}"`);
  if (capabilities.resumableReload && model !== "transactional") {
    problems.push(
      `resumableReload needs commitModel "transactional" (the swap shares a transaction with its record), not "${model}"`,
    );
  }
  if (capabilities.loggedTablesSetting !== undefined && model !== "data-then-log") {
    problems.push(`loggedTablesSetting applies to commitModel "data-then-log" only, not "${model}"`);
  }
  if (capabilities.replaceRecordAfterSwap && Array.isArray(declared) && !declared.includes("replace")) {
    problems.push("replaceRecordAfterSwap is declared, but writeStrategies lacks replace");
  }
  return problems;
}

/** Where a source's declaration and an opened table's methods disagree; empty when they agree. */
export function sourceCapabilityProblems(
  capabilities: SourceCapabilities,
  reader: Pick<SourceTableReader, "firstCursorAtOrAfter">,
): string[] {
  const has = typeof reader.firstCursorAtOrAfter === "function";
  if (capabilities.firstCursorLookup === has) return [];
  return [
    has
      ? "its opened tables have firstCursorAtOrAfter() but it declares firstCursorLookup: false"
      : "it declares firstCursorLookup: true but its opened tables have no firstCursorAtOrAfter()",
  ];
}

export function refuse(owner: string, role: string, problems: readonly string[]): never {
  throw new SqlloadError("SL406", `${owner}: its ${role} declares capabilities its methods do not match: ${problems.join("; ")}`);
}

/** Returns the connection when its capabilities and methods agree; otherwise throws SL406 naming `owner`. */
export function checkTargetConnection(connection: TargetConnection, owner: string): TargetConnection {
  const problems = targetCapabilityProblems(connection.capabilities, connection);
  if (problems.length > 0) refuse(owner, "target", problems);
  return connection;
}

/** Throws SL406 naming `owner` when an opened table's methods disagree with its source's capabilities. */
export function checkSourceReader(reader: SourceTableReader, capabilities: SourceCapabilities, owner: string): void {
  const problems = sourceCapabilityProblems(capabilities, reader);
  if (problems.length > 0) refuse(owner, "source", problems);
}
