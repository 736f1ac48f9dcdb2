import {
  type ConnectorContext,
  cursorKindOf,
  defaultSourceCapabilities,
  type SourceConnection,
  type SourceTableInfo,
  type SourceTableReader,
  type SourceTableRef,
  type SourceTableRequest,
  SqlloadError,
} from "@sqlload/core";
import type { TableDefinition } from "./api.js";
import { declaredColumns } from "./declared-columns.js";
import { loadTableModule } from "./module-loader.js";
import { TypeScriptReader } from "./typescript-reader.js";

/** Options a table declares in code, handed to core as settings (core validates and merges them below sqlload.toml's). */
function settingsOf(table: TableDefinition<unknown>): Record<string, unknown> {
  const { name: _name, columns: _columns, state: _state, ...settings } = table.options;
  return settings;
}

/** A source whose tables are the functions a TypeScript module exports. */
export async function openTypeScriptSource(context: ConnectorContext): Promise<SourceConnection> {
  const sourceName = context.sourceName ?? "typescript";
  const modulePath = context.options.module as string;
  const tables = await loadTableModule(modulePath, context.projectDir, sourceName);
  const byName = new Map(tables.map((t) => [t.name, t]));

  const find = (ref: SourceTableRef): TableDefinition<unknown> => {
    const table = ref.schema === undefined ? byName.get(ref.name) : undefined;
    if (!table) {
      throw new SqlloadError("SL206", `module ${modulePath} exports no table "${ref.key}" for source ${sourceName}`, {
        hint: tables.length
          ? `It exports: ${tables.map((t) => t.name).join(", ")}.`
          : `Export tables defined with source("${sourceName}").table(...) from ${modulePath}.`,
      });
    }
    return table;
  };

  return {
    capabilities: defaultSourceCapabilities,
    async listTables() {
      return tables.map((t) => ({ name: t.name, key: t.name }));
    },
    async describeTable(request: SourceTableRequest): Promise<SourceTableInfo> {
      const table = find(request.table);
      const label = `${sourceName}.${table.name}`;
      const columns = table.options.columns ? declaredColumns(table.options.columns, label) : undefined;
      const cursorColumn = request.cursorColumn ?? table.options.cursorColumn;
      const cursor = columns?.find((c) => c.name === cursorColumn);
      return {
        columns,
        cursorKind: cursor ? cursorKindOf(cursor.type) : undefined,
        cursorNullable: cursor?.nullable,
        settings: settingsOf(table),
        loggedState: table.options.state === "logged",
      };
    },
    async openTable(request: SourceTableRequest, info: SourceTableInfo): Promise<SourceTableReader> {
      const table = find(request.table);
      return new TypeScriptReader(table, info.columns, `${sourceName}.${table.name}`);
    },
    async close() {},
  };
}
