/**
 * The types sqlload moves data in. Every connector maps its own types to and from these; a type
 * a connector cannot hold exactly is mapped to the nearest wider one and the mapping documented.
 */
export type LogicalType =
  | { readonly kind: "boolean" }
  | { readonly kind: "int16" }
  | { readonly kind: "int32" }
  | { readonly kind: "int64" }
  | { readonly kind: "float32" }
  | { readonly kind: "float64" }
  /** Exact decimal; values travel as strings so no digit is lost. */
  | { readonly kind: "decimal"; readonly precision: number; readonly scale: number }
  | { readonly kind: "text" }
  | { readonly kind: "bytes" }
  | { readonly kind: "uuid" }
  /** JSON document; values travel as JSON text. */
  | { readonly kind: "json" }
  | { readonly kind: "date" }
  /** Time of day, microseconds. */
  | { readonly kind: "time" }
  /** Timestamp without zone, taken as UTC, microseconds. */
  | { readonly kind: "timestamp" }
  /** Timestamp with zone, microseconds, UTC. */
  | { readonly kind: "timestamptz" }
  | { readonly kind: "list"; readonly element: LogicalType };

export type LogicalKind = LogicalType["kind"];

export interface Column {
  readonly name: string;
  readonly type: LogicalType;
  readonly nullable: boolean;
}

export type Schema = readonly Column[];

/** `decimal(12,2)`, `list<int64>`: the form errors and `plan` print. */
export function formatLogicalType(type: LogicalType): string {
  if (type.kind === "decimal") return `decimal(${type.precision},${type.scale})`;
  if (type.kind === "list") return `list<${formatLogicalType(type.element)}>`;
  return type.kind;
}

export function sameLogicalType(a: LogicalType, b: LogicalType): boolean {
  return formatLogicalType(a) === formatLogicalType(b);
}

const SIMPLE_NAMES: Record<string, LogicalType> = {
  boolean: { kind: "boolean" },
  bool: { kind: "boolean" },
  int16: { kind: "int16" },
  smallint: { kind: "int16" },
  int32: { kind: "int32" },
  int: { kind: "int32" },
  integer: { kind: "int32" },
  int64: { kind: "int64" },
  bigint: { kind: "int64" },
  float32: { kind: "float32" },
  real: { kind: "float32" },
  float64: { kind: "float64" },
  double: { kind: "float64" },
  text: { kind: "text" },
  string: { kind: "text" },
  varchar: { kind: "text" },
  bytes: { kind: "bytes" },
  bytea: { kind: "bytes" },
  uuid: { kind: "uuid" },
  json: { kind: "json" },
  jsonb: { kind: "json" },
  date: { kind: "date" },
  time: { kind: "time" },
  timestamp: { kind: "timestamp" },
  timestamptz: { kind: "timestamptz" },
};

/**
 * Parses a type as users write it in `columns` declarations: `bigint`, `text`, `timestamp`,
 * `timestamptz`, `decimal(12,2)`, `numeric`, `list<text>`, `bigint[]`. Undefined when unknown.
 */
export function parseLogicalType(text: string): LogicalType | undefined {
  const t = text.trim().toLowerCase();
  const simple = SIMPLE_NAMES[t];
  if (simple) return simple;
  const dec = /^(?:decimal|numeric)(?:\s*\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\))?$/.exec(t);
  if (dec) return { kind: "decimal", precision: Number(dec[1] ?? 38), scale: Number(dec[2] ?? (dec[1] ? 0 : 9)) };
  const list = /^list<(.+)>$/.exec(t) ?? /^(.+)\[\]$/.exec(t);
  if (list?.[1]) {
    const element = parseLogicalType(list[1]);
    return element ? { kind: "list", element } : undefined;
  }
  return undefined;
}
