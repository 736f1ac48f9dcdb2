import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { Args, Flags } from "@oclif/core";
import { SqlloadError } from "@sqlload/core";
import { quickstartFiles } from "../project/quickstart.js";
import { SqlloadCommand } from "../sqlload-command.js";

export default class Init extends SqlloadCommand {
  static override summary = "Create a quickstart project that loads generated orders into an embedded DuckDB file.";
  static override description =
    `Writes sqlload.toml (DuckDB target warehouse.duckdb, schema raw) and sources/shop.ts, a table function that generates 100,000 orders over the past year. Then:

  sqlload plan    # what a load would do
  sqlload load    # loads raw.shop__orders
  sqlload load    # again: only rows at or after the destination maximum are read`;
  static override examples = ["<%= config.bin %> init", "<%= config.bin %> init my-project"];
  static override args = {
    dir: Args.string({ description: "Folder to create the project in (default: this folder).", ignoreStdin: true }),
  };
  static override flags = { force: Flags.boolean({ summary: "Overwrite existing files." }) };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Init);
    const dir = resolve(args.dir ?? ".");
    const files = quickstartFiles(new Date());
    const existing = Object.keys(files).filter((f) => f !== ".gitignore" && existsSync(join(dir, f)));
    if (existing.length && !flags.force) {
      throw new SqlloadError("SL107", `${existing.map((f) => join(dir, f)).join(", ")} already exist`, {
        hint: "Choose another folder, or pass --force to overwrite.",
      });
    }
    for (const [name, text] of Object.entries(files)) {
      const file = join(dir, name);
      if (name === ".gitignore" && existsSync(file)) continue;
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, text);
      this.out(`created ${relative(process.cwd(), file) || file}`);
    }
    const cd = relative(process.cwd(), dir);
    this.out(`\nNext:${cd ? `\n  cd ${cd}` : ""}\n  sqlload plan\n  sqlload load`);
  }
}
