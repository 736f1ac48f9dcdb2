import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Command, Flags, type Interfaces } from "@oclif/core";
import { connectorNames, findProjectFile, isSqlloadError, loadConfig, type ProjectConfig, ProjectSession } from "@sqlload/core";
import { type Discovery, discoverConnectors, installHint } from "./connectors/discover.js";
import { exitCodeForError } from "./exit-codes.js";
import { redact } from "./render/redact.js";

// A project module's `import … from "sqlload"` resolves to this very package when the project has
// none. Registered by symbol (the TypeScript connector reads it) so start-up imports no connector.
(globalThis as Record<symbol, unknown>)[Symbol.for("sqlload.runtime-module")] = join(
  dirname(fileURLToPath(import.meta.url)),
  "index.js",
);

export type SqlloadFlags<T extends typeof Command> = Interfaces.InferredFlags<(typeof SqlloadCommand)["baseFlags"] & T["flags"]>;

/** What every sqlload command shares: `--project`, connector discovery, and how errors end the process. */
export abstract class SqlloadCommand extends Command {
  static override baseFlags = {
    project: Flags.directory({
      char: "p",
      summary: "Folder holding sqlload.toml (default: this folder or the nearest one above it).",
      helpGroup: "GLOBAL",
    }),
  };

  protected secrets: readonly string[] = [];

  /** Finds the project, discovers connectors (bundled and the project's own) and validates the config. */
  protected async openProject(
    projectFlag: string | undefined,
  ): Promise<{ config: ProjectConfig; session: ProjectSession; discovery: Discovery }> {
    const file = findProjectFile(projectFlag ?? process.cwd(), projectFlag !== undefined);
    const discovery = await discoverConnectors(this.config, dirname(file), connectorNames(file));
    for (const warning of discovery.warnings) this.warn(warning);
    const config = loadConfig(file, {
      connectorSchema: (name) => discovery.connectors.get(name)?.connector.configSchema,
      installHint,
    });
    this.secrets = config.secrets;
    const session = new ProjectSession(config, (name) => discovery.connectors.get(name)?.connector);
    return { config, session, discovery };
  }

  /** Prints a line on stdout with secrets redacted. */
  protected out(line: string): void {
    process.stdout.write(`${redact(line, this.secrets)}\n`);
  }

  /** Prints a line on stderr with secrets redacted. */
  protected err(line: string): void {
    process.stderr.write(`${redact(line, this.secrets)}\n`);
  }

  protected override async catch(error: Error & { code?: string; oclif?: { exit?: number } }): Promise<unknown> {
    // `this.exit(n)` throws EEXIT; let oclif end the process with that code.
    if (error.code === "EEXIT") throw error;
    if (isSqlloadError(error)) {
      this.err(error.format());
      this.exit(exitCodeForError(error));
    }
    // oclif's own parse errors (unknown flag, missing argument) are usage errors.
    if (
      error.oclif?.exit !== undefined ||
      error.name === "CLIError" ||
      /Nonexistent flag|Unexpected argument|Missing required/.test(error.message)
    ) {
      this.err(`error: ${error.message}`);
      this.exit(2);
    }
    return super.catch(error);
  }
}
