import { checkTables } from "@sqlload/core";
import { SqlloadCommand } from "../sqlload-command.js";

export default class Check extends SqlloadCommand {
  static override summary = "Validate sqlload.toml and the table modules, without connecting to anything.";
  static override description =
    `Finds unknown keys, wrong types, impossible combinations and missing connectors, each with a stable code (SL…), the file, line and key, and a hint. Where a table declares its cursor column's type (a TypeScript table's \`columns\`), the settings that depend on it are checked too (\`cursor_end = "now"\`, \`batch_size\`, \`lookback\`, \`cursor_start\` on an integer cursor, …). \`plan\` and \`load\` run the same checks first, and check what only the source's metadata can tell before opening the target.

Exit code 0 when the project is valid, 2 when it is not.`;
  static override examples = ["<%= config.bin %> check", "<%= config.bin %> check --project ./warehouse"];

  async run(): Promise<void> {
    const { flags } = await this.parse(Check);
    const { config, session } = await this.openProject(flags.project);
    try {
      const tables = await session.tables();
      // Tables defined in code declare settings and columns: validate those too, and the rules that
      // follow from a declared cursor kind (loading a module connects to nothing).
      await checkTables(session, tables, {}, { connect: false });
      await session.checkTargetSupports(tables);
      const n = (count: number, word: string) => `${count} ${word}${count === 1 ? "" : "s"}`;
      this.out(
        `ok: ${config.file}: target ${config.target.connector} (schema ${config.target.schema}), ${n(config.sources.length, "source")}, ${n(tables.length, "table")}`,
      );
    } finally {
      await session.close();
    }
  }
}
