import type pg from "pg";
import { type CatalogColumn, mapColumn, type PgColumn } from "./postgres-dialect.js";

/** What runs catalog queries: a pool, or the client holding a read snapshot. */
export type Queryable = Pick<pg.ClientBase, "query">;

type RelationRef = { readonly schema?: string | undefined; readonly name: string };

/**
 * The relation `ref` names, as a query yielding its `oid` (NULL or no row when there is none), and
 * its parameters: in a schema, a table, view or foreign table; without one, as the search path finds it.
 */
function relationQuery(ref: RelationRef): { readonly sql: string; readonly params: string[] } {
  return ref.schema === undefined
    ? { sql: "SELECT to_regclass(quote_ident($1))::oid AS oid", params: [ref.name] }
    : {
        sql: `SELECT c.oid FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE n.nspname = $1 AND c.relname = $2 AND c.relkind IN ('r', 'p', 'v', 'm', 'f')`,
        params: [ref.schema, ref.name],
      };
}

/** The table's oid, or null when it does not exist. Without a schema the search path decides. */
export async function findTable(db: Queryable, ref: RelationRef): Promise<number | null> {
  const { sql, params } = relationQuery(ref);
  const result = await db.query<{ oid: number | null }>(sql, params);
  return result.rows[0]?.oid ?? null;
}

/**
 * The columns of the relation `r` (a subquery yielding its `oid`), in order, with the relation's
 * oid on every row: one row with no column (`name` NULL) for a relation without columns, none for
 * one that does not exist.
 */
const columnsSql = (relation: string, extra = "") => `
SELECT r.oid AS relid, pc.relkind = 'r' AND NOT pc.relhassubclass AS "wholeCopy"${extra}, col.*
FROM (${relation}) r
LEFT JOIN pg_class pc ON pc.oid = r.oid
LEFT JOIN LATERAL (
  SELECT a.attnum,
         a.attname AS name,
         a.attnotnull AS "notNull",
         format_type(a.atttypid, a.atttypmod) AS declared,
         bt.typname AS "typeName",
         bt.typtype AS "typeType",
         CASE WHEN t.typtype = 'd' THEN t.typtypmod ELSE a.atttypmod END AS typmod,
         et.typname AS "elementName",
         et.typtype AS "elementType",
         et.oid AS "elementOid",
         co.collname AS collation
  FROM pg_attribute a
  JOIN pg_type t ON t.oid = a.atttypid
  JOIN pg_type bt ON bt.oid = CASE WHEN t.typtype = 'd' THEN t.typbasetype ELSE t.oid END
  LEFT JOIN pg_type et ON et.oid = bt.typelem AND bt.typcategory = 'A'
  LEFT JOIN pg_collation co ON co.oid = a.attcollation
  WHERE a.attrelid = r.oid AND a.attnum > 0 AND NOT a.attisdropped
) col ON true
WHERE r.oid IS NOT NULL
ORDER BY col.attnum`;

/**
 * The table's oid and columns, or null when it does not exist, in one round trip (a load
 * describes a table several times, each a round trip to a server that may be far away). Found as
 * `findTable` finds it. With `also` (a qualified name), whether that relation exists too, in the
 * same round trip. `wholeCopy`: the relation is a table no other table inherits from (no child, no
 * partition), so `COPY table TO` reads every row a `SELECT` from it would.
 */
export async function describeRelation(
  db: Queryable,
  ref: RelationRef,
  also?: string,
): Promise<{
  readonly oid: number;
  readonly columns: PgColumn[];
  readonly alsoExists: boolean;
  readonly wholeCopy: boolean;
} | null> {
  const { sql, params } = relationQuery(ref);
  // A subquery, so it is computed once, not on every column's row.
  const extra = also === undefined ? "" : `, (SELECT to_regclass($${params.push(also)}) IS NOT NULL) AS "alsoExists"`;
  const result = await db.query<CatalogColumn & { relid: number; alsoExists?: boolean; wholeCopy: boolean | null }>(
    columnsSql(sql, extra),
    params,
  );
  const first = result.rows[0];
  if (!first) return null;
  const columns = result.rows
    .filter((row) => row.name !== null)
    .map((row) => mapColumn({ ...row, elementOid: row.elementOid === null ? null : Number(row.elementOid) }));
  return { oid: Number(first.relid), columns, alsoExists: first.alsoExists === true, wholeCopy: first.wholeCopy === true };
}

/**
 * Whether the database's default collation sorts by code point (libc "C" or "POSIX"), so that
 * columns using it need no `COLLATE "C"`. `datlocprovider` exists from Postgres 15 on; reading
 * it through `to_jsonb` works on older versions too.
 */
export async function defaultCollationIsCodePoint(db: Queryable): Promise<boolean> {
  const result = await db.query<{ collate: string; provider: string | null }>(
    `SELECT d.datcollate AS collate, to_jsonb(d) ->> 'datlocprovider' AS provider
     FROM pg_database d WHERE d.datname = current_database()`,
  );
  const row = result.rows[0];
  if (!row) return false;
  return (row.provider === null || row.provider === "c") && (row.collate === "C" || row.collate === "POSIX");
}

export interface LeadingIndex {
  readonly name: string;
  readonly collation: string | null;
  readonly method: string;
  /** Led by the column cast to text (`("col"::text COLLATE "C")`, a text cursor of a type COLLATE does not apply to), not the column itself. */
  readonly asText: boolean;
}

/**
 * Roughly what `SELECT … FROM` the relation moves, in bytes, from the page counts the planner's
 * statistics keep (`pg_class.relpages`): the relation and every table that inherits from it or is
 * one of its partitions, out-of-line TOAST four times (stored compressed, sent whole). Reading the
 * catalog takes no lock on the tables, so it never waits behind an `ALTER TABLE`. A part never
 * vacuumed or analyzed counts its pages as 0 (partitions made ahead of time stay so), which core's
 * count of what the read really moves corrects; NULL when a part keeps no rows in files of its own
 * (a foreign table).
 */
const ESTIMATE_SQL = `
WITH RECURSIVE tree(oid) AS (
  SELECT $1::oid
  UNION ALL SELECT i.inhrelid FROM pg_inherits i JOIN tree ON i.inhparent = tree.oid
)
SELECT CASE WHEN bool_and(c.relkind IN ('r', 'm', 'p'))
            THEN sum(CASE WHEN c.relkind = 'p' THEN 0 ELSE c.relpages::int8 + 4 * COALESCE(t.relpages, 0) END)
                 * current_setting('block_size')::int8
       END AS bytes
FROM tree
JOIN pg_class c ON c.oid = tree.oid
LEFT JOIN pg_class t ON t.oid = NULLIF(c.reltoastrelid, 0)`;

/**
 * The valid, non-partial indexes whose first key is the column, or the column cast to text (an
 * expression index, which keeps no column number: matched by how Postgres prints its key), with
 * that key's collation, and roughly what a read of the whole relation moves (`ESTIMATE_SQL`), in
 * one round trip.
 */
export async function cursorIndexesAndEstimate(
  db: Queryable,
  oid: number,
  column: string,
): Promise<{ readonly indexes: LeadingIndex[]; readonly bytes: number | undefined }> {
  const result = await db.query<{
    bytes: string | null;
    name: string | null;
    collation: string | null;
    method: string | null;
    as_text: boolean | null;
  }>(
    `SELECT estimate.bytes, ix.name, ix.collation, ix.method, ix.as_text
     FROM (${ESTIMATE_SQL}) estimate
     LEFT JOIN LATERAL (
       SELECT ic.relname AS name, co.collname AS collation, am.amname AS method, i.indkey[0] = 0 AS as_text
       FROM pg_index i
       JOIN pg_class ic ON ic.oid = i.indexrelid
       JOIN pg_am am ON am.oid = ic.relam
       LEFT JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0]
       LEFT JOIN pg_collation co ON co.oid = i.indcollation[0]
       WHERE i.indrelid = $1 AND i.indisvalid AND i.indpred IS NULL
         AND (a.attname = $2 OR (i.indkey[0] = 0 AND pg_get_indexdef(i.indexrelid, 1, false) = '((' || quote_ident($2) || ')::text)'))
     ) ix ON true
     ORDER BY ix.name`,
    [oid, column],
  );
  const bytes = result.rows[0]?.bytes;
  const indexes = result.rows.flatMap((r) =>
    r.name === null ? [] : [{ name: r.name, collation: r.collation, method: r.method as string, asText: r.as_text === true }],
  );
  return { indexes, bytes: bytes === null || bytes === undefined ? undefined : Number(bytes) };
}
