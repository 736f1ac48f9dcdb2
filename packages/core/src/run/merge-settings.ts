import { camelCase } from "../config/schema.js";
import { checkCombinations, type SettingLocator, type TableSettings, validateTableSettings } from "../config/table-settings.js";

/**
 * A table's own settings (a TypeScript table's options, camelCase) below those of
 * `sqlload.toml`: where both set one, the file wins. The result is checked as a whole.
 */
export function mergeTableSettings(
  file: TableSettings,
  own: Readonly<Record<string, unknown>> | undefined,
  where: SettingLocator,
  table: string,
): TableSettings {
  if (!own || Object.keys(own).length === 0) return file;
  const validated = validateTableSettings(own, { naming: "camel", where, table }).settings;
  const merged = { ...validated, ...definedOnly(file) } as TableSettings;
  checkCombinations(merged, camelCase, where, table);
  return merged;
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
