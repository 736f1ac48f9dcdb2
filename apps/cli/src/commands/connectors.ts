import { dirname } from "node:path";
import { Flags } from "@oclif/core";
import { findProjectFile } from "@sqlload/core";
import { discoverConnectors } from "../connectors/discover.js";
import { SqlloadCommand } from "../sqlload-command.js";

export default class Connectors extends SqlloadCommand {
  static override summary = "List the connectors this sqlload can use, and where each was found.";
  static override description = `Connectors come from three places:
  bundled   installed with sqlload (duckdb, postgres, typescript, files)
  plugin    added with \`sqlload plugins install PACKAGE\` (or \`plugins link DIR\`: linked)
  project   packages in the project's node_modules declaring "sqlload": { "connector": NAME } in package.json

A package that fails to load, was built for another core API, or repeats a name is listed as a warning.`;
  static override examples = [
    "<%= config.bin %> connectors",
    "<%= config.bin %> plugins install @sqlload/connector-clickhouse && <%= config.bin %> connectors",
    "<%= config.bin %> connectors --json",
  ];
  static override flags = { json: Flags.boolean({ summary: "Print the list as JSON." }) };

  async run(): Promise<void> {
    const { flags } = await this.parse(Connectors);
    let projectDir: string | undefined;
    try {
      projectDir = dirname(findProjectFile(flags.project ?? process.cwd(), flags.project !== undefined));
    } catch {
      // Outside a project only bundled and plugin connectors are listed.
    }
    const { connectors, warnings } = await discoverConnectors(this.config, projectDir);
    const rows = [...connectors.values()].map((c) => ({
      name: c.name,
      package: c.packageName,
      version: c.version,
      source: c.connector.source !== undefined,
      target: c.connector.target !== undefined,
      origin: c.origin,
      path: c.path,
    }));
    if (flags.json) {
      this.out(JSON.stringify({ connectors: rows, warnings }, null, 2));
      return;
    }
    const table = [
      ["NAME", "PACKAGE", "VERSION", "ROLES", "FOUND"],
      ...rows.map((r) => [
        r.name,
        r.package,
        r.version,
        [r.source && "source", r.target && "target"].filter(Boolean).join("+"),
        r.origin,
      ]),
    ];
    const widths = table[0]!.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
    for (const row of table)
      this.out(
        row
          .map((cell, i) => cell.padEnd(widths[i]!))
          .join("  ")
          .trimEnd(),
      );
    for (const warning of warnings) this.err(`warning: ${warning}`);
  }
}
