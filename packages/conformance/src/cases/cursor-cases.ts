import {
  type CursorKind,
  type CursorRange,
  type CursorValue,
  dateCursor,
  integerCursor,
  type LogicalType,
  parseDateDays,
  parseTimestampMicros,
  textCursor,
  timestampCursor,
} from "@sqlload/core";

/** A cursor cell as the cases write it: the form `batchFromRows` takes, or null. */
export type CursorInput = bigint | number | string | null;

const day = (text: string): CursorValue => dateCursor(parseDateDays(text)!);
const micros = (text: string): bigint => parseTimestampMicros(text)!;
const ts = (text: string, plus = 0n): CursorValue => timestampCursor(micros(text) + plus);

const TWO_53 = 2n ** 53n;
const T = "2026-10-12T16:00:00.123456Z";

/**
 * One column of cursor values per kind, written as rows and then probed by the range, maximum and
 * first-at-or-after cases. Each holds NULLs, ties and the values where engines go wrong:
 * integers past 2^53 (a JS number rounds them), microseconds one apart (a JS Date drops them),
 * dates around the epoch and a leap day, and text where code point order differs from byte
 * collations, JavaScript's UTF-16 order and Unicode normalization.
 */
export interface CursorDataset {
  readonly kind: CursorKind;
  readonly type: LogicalType;
  readonly values: readonly CursorInput[];
}

export const cursorDatasets = {
  integer: {
    kind: "integer",
    type: { kind: "int64" },
    values: [-1n, 0n, 1n, 2n, 2n, 3n, 4n, 5n, TWO_53, TWO_53 + 1n, TWO_53 + 2n, null],
  },
  date: {
    kind: "date",
    type: { kind: "date" },
    values: ["1969-12-31", "1970-01-01", "2024-02-28", "2024-02-29", "2024-02-29", "2024-03-01", null],
  },
  timestamp: {
    kind: "timestamp",
    type: { kind: "timestamptz" },
    values: [
      "1969-12-31T23:59:59.999999Z",
      "1970-01-01T00:00:00Z",
      micros(T) - 1n,
      micros(T),
      micros(T),
      micros(T) + 1n,
      micros(T) + 1_000_000n,
      null,
    ],
  },
  text: {
    kind: "text",
    type: { kind: "text" },
    values: [
      "",
      "B1",
      "B2",
      "Z",
      "a",
      "a9",
      "a9",
      "e\u0301", // e + combining acute: stays right after "e"
      "\u00e9", // é precomposed: after every ASCII letter
      "\ue000", // private use: above the surrogates in UTF-16, below every astral character
      "\ufffd",
      "\u{1f600}", // 😀: a surrogate pair in UTF-16, so JavaScript's < puts it before U+E000
      "\u{10ffff}",
      null,
    ],
  },
} as const satisfies Record<CursorKind, CursorDataset>;

export interface RangeCase {
  readonly title: string;
  readonly dataset: CursorKind;
  readonly range: CursorRange;
  readonly includeNulls: boolean;
  /** The dataset's values inside the range (with repeats); `null` for NULL cursors. */
  readonly inside: readonly CursorInput[];
}

/**
 * Half-open ranges `[from, to)` (or `(from, to)` with `fromInclusive: false`), either end open, at
 * exact boundaries. Targets delete what is inside; sources read it.
 */
export const rangeCases: readonly RangeCase[] = [
  {
    title: "[1, 4)",
    dataset: "integer",
    range: { from: integerCursor(1), to: integerCursor(4) },
    includeNulls: false,
    inside: [1n, 2n, 2n, 3n],
  },
  {
    title: "(1, 4): from exclusive",
    dataset: "integer",
    range: { from: integerCursor(1), fromInclusive: false, to: integerCursor(4) },
    includeNulls: false,
    inside: [2n, 2n, 3n],
  },
  {
    title: "[4, ∞): open end",
    dataset: "integer",
    range: { from: integerCursor(4) },
    includeNulls: false,
    inside: [4n, 5n, TWO_53, TWO_53 + 1n, TWO_53 + 2n],
  },
  {
    title: "(4, ∞): from exclusive, open end",
    dataset: "integer",
    range: { from: integerCursor(4), fromInclusive: false },
    includeNulls: false,
    inside: [5n, TWO_53, TWO_53 + 1n, TWO_53 + 2n],
  },
  { title: "(−∞, 0): open start", dataset: "integer", range: { to: integerCursor(0) }, includeNulls: false, inside: [-1n] },
  {
    title: "(−∞, ∞) leaves NULL cursors out",
    dataset: "integer",
    range: {},
    includeNulls: false,
    inside: [-1n, 0n, 1n, 2n, 2n, 3n, 4n, 5n, TWO_53, TWO_53 + 1n, TWO_53 + 2n],
  },
  {
    title: "(−∞, ∞) with includeNulls takes every row",
    dataset: "integer",
    range: {},
    includeNulls: true,
    inside: [-1n, 0n, 1n, 2n, 2n, 3n, 4n, 5n, TWO_53, TWO_53 + 1n, TWO_53 + 2n, null],
  },
  {
    title: "[1, 4) with includeNulls adds NULL cursors",
    dataset: "integer",
    range: { from: integerCursor(1), to: integerCursor(4) },
    includeNulls: true,
    inside: [1n, 2n, 2n, 3n, null],
  },
  {
    title: "[3, 3): empty",
    dataset: "integer",
    range: { from: integerCursor(3), to: integerCursor(3) },
    includeNulls: false,
    inside: [],
  },
  {
    title: "[6, ∞): past the maximum",
    dataset: "integer",
    range: { from: integerCursor(6n + TWO_53) },
    includeNulls: false,
    inside: [],
  },
  {
    title: "[2^53+1, 2^53+2): one integer past 2^53",
    dataset: "integer",
    range: { from: integerCursor(TWO_53 + 1n), to: integerCursor(TWO_53 + 2n) },
    includeNulls: false,
    inside: [TWO_53 + 1n],
  },
  {
    title: "(2^53, ∞): exclusive bound past 2^53",
    dataset: "integer",
    range: { from: integerCursor(TWO_53), fromInclusive: false },
    includeNulls: false,
    inside: [TWO_53 + 1n, TWO_53 + 2n],
  },
  {
    title: "[2024-02-29, 2024-03-01): one day",
    dataset: "date",
    range: { from: day("2024-02-29"), to: day("2024-03-01") },
    includeNulls: false,
    inside: ["2024-02-29", "2024-02-29"],
  },
  {
    title: "(2024-02-28, ∞): from exclusive",
    dataset: "date",
    range: { from: day("2024-02-28"), fromInclusive: false },
    includeNulls: false,
    inside: ["2024-02-29", "2024-02-29", "2024-03-01"],
  },
  {
    title: "(−∞, 1970-01-01): before the epoch",
    dataset: "date",
    range: { to: day("1970-01-01") },
    includeNulls: false,
    inside: ["1969-12-31"],
  },
  {
    title: "[T, T+1µs): one microsecond",
    dataset: "timestamp",
    range: { from: ts(T), to: ts(T, 1n) },
    includeNulls: false,
    inside: [micros(T), micros(T)],
  },
  {
    title: "(T−1µs, T+1µs): from exclusive",
    dataset: "timestamp",
    range: { from: ts(T, -1n), fromInclusive: false, to: ts(T, 1n) },
    includeNulls: false,
    inside: [micros(T), micros(T)],
  },
  {
    title: "[T+1µs, ∞)",
    dataset: "timestamp",
    range: { from: ts(T, 1n) },
    includeNulls: false,
    inside: [micros(T) + 1n, micros(T) + 1_000_000n],
  },
  {
    title: "(−∞, 1970-01-01 00:00:00): the last microsecond before the epoch",
    dataset: "timestamp",
    range: { to: ts("1970-01-01T00:00:00Z") },
    includeNulls: false,
    inside: ["1969-12-31T23:59:59.999999Z"],
  },
  {
    title: "['B1', 'a9'): upper case before lower case",
    dataset: "text",
    range: { from: textCursor("B1"), to: textCursor("a9") },
    includeNulls: false,
    inside: ["B1", "B2", "Z", "a"],
  },
  {
    title: "['', 'B1'): the empty string is a value, not NULL",
    dataset: "text",
    range: { from: textCursor(""), to: textCursor("B1") },
    includeNulls: false,
    inside: [""],
  },
  {
    title: "('', ∞): from the empty string, exclusive",
    dataset: "text",
    range: { from: textCursor(""), fromInclusive: false },
    includeNulls: false,
    inside: ["B1", "B2", "Z", "a", "a9", "a9", "e\u0301", "\u00e9", "\ue000", "\ufffd", "\u{1f600}", "\u{10ffff}"],
  },
  {
    title: "['e', 'f'): a combining mark is not the precomposed letter",
    dataset: "text",
    range: { from: textCursor("e"), to: textCursor("f") },
    includeNulls: false,
    inside: ["e\u0301"],
  },
  {
    title: "['\\uE000', '\\u{1F600}'): U+E000–U+FFFF sort below astral characters",
    dataset: "text",
    range: { from: textCursor("\ue000"), to: textCursor("\u{1f600}") },
    includeNulls: false,
    inside: ["\ue000", "\ufffd"],
  },
  {
    title: "['\\uFFFD', '\\u{10FFFF}'): astral characters sort above the BMP",
    dataset: "text",
    range: { from: textCursor("\ufffd"), to: textCursor("\u{10ffff}") },
    includeNulls: false,
    inside: ["\ufffd", "\u{1f600}"],
  },
  {
    title: "['a9', ∞) with includeNulls",
    dataset: "text",
    range: { from: textCursor("a9") },
    includeNulls: true,
    inside: ["a9", "a9", "e\u0301", "\u00e9", "\ue000", "\ufffd", "\u{1f600}", "\u{10ffff}", null],
  },
];

export interface MaxCase {
  readonly title: string;
  readonly type: LogicalType;
  readonly kind: CursorKind;
  readonly values: readonly CursorInput[];
  /** The maximum, or null for a table with no non-NULL cursor. */
  readonly max: CursorValue | null;
}

/** The maximum of a cursor column, per kind and column type, with NULLs and ties. */
export const maxCases: readonly MaxCase[] = [
  {
    title: "int64 with NULLs and ties",
    type: { kind: "int64" },
    kind: "integer",
    values: [3n, null, 7n, 7n, -2n],
    max: integerCursor(7),
  },
  {
    title: "int64 past 2^53",
    type: { kind: "int64" },
    kind: "integer",
    values: [TWO_53, TWO_53 + 1n, null],
    max: integerCursor(TWO_53 + 1n),
  },
  {
    title: "int64 at both ends of its range",
    type: { kind: "int64" },
    kind: "integer",
    values: [-(2n ** 63n), 2n ** 63n - 1n, 2n ** 63n - 2n],
    max: integerCursor(2n ** 63n - 1n),
  },
  { title: "int32", type: { kind: "int32" }, kind: "integer", values: [5, -5, null, 5], max: integerCursor(5) },
  { title: "int16", type: { kind: "int16" }, kind: "integer", values: [-32768, 32767, null], max: integerCursor(32767) },
  { title: "only NULLs", type: { kind: "int64" }, kind: "integer", values: [null, null], max: null },
  { title: "no rows", type: { kind: "int64" }, kind: "integer", values: [], max: null },
  {
    title: "date with NULLs and ties",
    type: { kind: "date" },
    kind: "date",
    values: ["2024-02-29", null, "2024-02-29", "1969-12-31"],
    max: day("2024-02-29"),
  },
  {
    title: "timestamptz one microsecond apart, with a tie",
    type: { kind: "timestamptz" },
    kind: "timestamp",
    values: [micros(T), micros(T) + 1n, micros(T) + 1n, null, micros(T) - 1n],
    max: ts(T, 1n),
  },
  {
    title: "timestamp (no zone) one microsecond apart",
    type: { kind: "timestamp" },
    kind: "timestamp",
    values: [micros(T) + 1n, micros(T), null],
    max: ts(T, 1n),
  },
  {
    title: "timestamptz before the epoch",
    type: { kind: "timestamptz" },
    kind: "timestamp",
    values: ["1969-12-31T23:59:59.999998Z", "1969-12-31T23:59:59.999999Z"],
    max: ts("1969-12-31T23:59:59.999999Z"),
  },
  { title: "text 'B1' < 'a9'", type: { kind: "text" }, kind: "text", values: ["a9", "B1", null], max: textCursor("a9") },
  { title: "text 'a' above 'Z' and 'A'", type: { kind: "text" }, kind: "text", values: ["A", "a", "Z"], max: textCursor("a") },
  {
    title: "text astral above U+FFFD",
    type: { kind: "text" },
    kind: "text",
    values: ["\ufffd", "\u{1f600}", "\ue000"],
    max: textCursor("\u{1f600}"),
  },
  {
    title: "text U+10000 above U+E000",
    type: { kind: "text" },
    kind: "text",
    values: ["\u{10000}", "\ue000"],
    max: textCursor("\u{10000}"),
  },
  {
    title: "text precomposed é above e + combining acute",
    type: { kind: "text" },
    kind: "text",
    values: ["\u00e9", "e\u0301", "f"],
    max: textCursor("\u00e9"),
  },
  {
    title: "text a + combining mark above a",
    type: { kind: "text" },
    kind: "text",
    values: ["a\u0301", "a", null],
    max: textCursor("a\u0301"),
  },
  {
    title: "text: the empty string is a maximum, not NULL",
    type: { kind: "text" },
    kind: "text",
    values: ["", null],
    max: textCursor(""),
  },
];

export interface FirstAtOrAfterCase {
  readonly title: string;
  readonly dataset: CursorKind;
  readonly probe: CursorValue;
  readonly first: CursorValue | null;
}

/** `firstCursorAtOrAfter(probe)` over a dataset: how the engine skips windows with no rows. */
export const firstAtOrAfterCases: readonly FirstAtOrAfterCase[] = [
  { title: "integer: a present value is its own answer", dataset: "integer", probe: integerCursor(2), first: integerCursor(2) },
  { title: "integer: between values", dataset: "integer", probe: integerCursor(6), first: integerCursor(TWO_53) },
  { title: "integer: before every value", dataset: "integer", probe: integerCursor(-100), first: integerCursor(-1) },
  { title: "integer: past 2^53", dataset: "integer", probe: integerCursor(TWO_53 + 1n), first: integerCursor(TWO_53 + 1n) },
  { title: "integer: after the maximum (NULLs don't count)", dataset: "integer", probe: integerCursor(TWO_53 + 3n), first: null },
  { title: "date: between values", dataset: "date", probe: day("1970-01-02"), first: day("2024-02-28") },
  { title: "timestamp: one microsecond later", dataset: "timestamp", probe: ts(T, 1n), first: ts(T, 1n) },
  { title: "timestamp: between microseconds", dataset: "timestamp", probe: ts(T, 2n), first: ts(T, 1_000_000n) },
  { title: "text: code point order, 'B3' → 'Z'", dataset: "text", probe: textCursor("B3"), first: textCursor("Z") },
  {
    title: "text: '\\uE001' → '\\uFFFD', not an astral character",
    dataset: "text",
    probe: textCursor("\ue001"),
    first: textCursor("\ufffd"),
  },
  { title: "text: '\\uFFFE' → '\\u{1F600}'", dataset: "text", probe: textCursor("\ufffe"), first: textCursor("\u{1f600}") },
  { title: "text: 'e' → 'e' + combining acute", dataset: "text", probe: textCursor("e"), first: textCursor("e\u0301") },
  { title: "text: '' is a value", dataset: "text", probe: textCursor(""), first: textCursor("") },
];
