import { type CatalogColumn, mapColumn, type PgColumn } from "../src/postgres-dialect.js";

/** A catalog row as the source's describe reads it: a nullable base-type column of `typeName`, changed by `over`. */
export const catalogColumn = (over: Partial<CatalogColumn>): CatalogColumn => ({
  name: "c",
  notNull: false,
  declared: "text",
  typeName: "text",
  typeType: "b",
  typmod: -1,
  elementName: null,
  elementType: null,
  elementOid: null,
  collation: null,
  ...over,
});

/** A nullable column of `typeName` (an array of `elementName` given its element's oid) as the source maps it. */
export const pgColumn = (
  name: string,
  typeName: string,
  elementOid: number | null = null,
  elementName: string | null = null,
): PgColumn =>
  mapColumn(
    catalogColumn({ name, declared: typeName, typeName, elementName, elementType: elementName ? "b" : null, elementOid }),
  );
