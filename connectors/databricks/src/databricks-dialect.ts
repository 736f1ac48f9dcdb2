import type { TargetTableRef } from "@sqlload/core";

/** `` `Odd``Name` ``: Databricks quotes identifiers in backticks and doubles a backtick inside. */
export function quoteIdentifier(name: string): string {
  return `\`${name.replaceAll("`", "``")}\``;
}

/** Where a table lives: `catalog`.`schema`.`table` in Unity Catalog. */
export function qualifiedTable(catalog: string, ref: TargetTableRef): string {
  return `${quoteIdentifier(catalog)}.${quoteIdentifier(ref.schema)}.${quoteIdentifier(ref.name)}`;
}

export function qualifiedSchema(catalog: string, schema: string): string {
  return `${quoteIdentifier(catalog)}.${quoteIdentifier(schema)}`;
}

/**
 * Named parameters of one statement (`:p0`, `:p1`, …), all sent as STRING and cast in SQL where
 * the column needs another type: the driver would otherwise turn numbers into JS numbers, and a
 * STRING parameter carries every value exactly.
 */
export class Parameters {
  readonly values: Record<string, string | null> = {};
  private next = 0;

  add(value: string | null): string {
    const name = `p${this.next++}`;
    this.values[name] = value;
    return `:${name}`;
  }

  get size(): number {
    return this.next;
  }
}
