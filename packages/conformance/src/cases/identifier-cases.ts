/**
 * Names a connector must quote, never splice: each is used as a table name, a column name, the
 * cursor column and the merge key. Tables land as `<source>__<table>` from source names as
 * users wrote them in `sqlload.toml`, so anything a quoted SQL identifier can hold shows up.
 */
export const identifierCases: readonly { readonly title: string; readonly name: string }[] = [
  { title: "double and single quotes", name: `it's "quoted"` },
  { title: "spaces", name: "with  two spaces " },
  { title: "dots", name: "dot.ted.name" },
  { title: "Unicode", name: "Ünïcødé 表 😀" },
  { title: "mixed case", name: "MixedCase" },
  { title: "a reserved word", name: "select" },
  { title: "SQL after a quote", name: `x"; DROP TABLE y; --` },
  { title: "backslash and backtick", name: "back\\slash `tick` [br]" },
];

/** A schema name with the same troubles, appended to the fixture's schema. */
export const oddSchemaSuffix = ` "odd.schema" it's`;
