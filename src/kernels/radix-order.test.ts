import { describe, expect, it } from "vitest";
import { seededRandom } from "../formats/test-rows.js";
import { comparatorRowOrder, sortedRowOrder, type ColumnView, type NumberView, type StringView } from "./hash-table-columns.js";
import { doubleWords, RADIX_MIN_ROWS, radixOrder, sortTies, stringPrefixWords } from "./radix-order.js";
import { comparatorOrder, stableOrder, stringRanks } from "./sort.js";

const utf8 = new TextEncoder();

/** A string view of `values` (null: a null row). */
function strings(values: readonly (string | Uint8Array | null)[]): StringView {
  const parts = values.map((v) => (v === null ? new Uint8Array(0) : typeof v === "string" ? utf8.encode(v) : v));
  const bytes = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  const starts = new Int32Array(values.length);
  const ends = new Int32Array(values.length);
  let at = 0;
  parts.forEach((p, i) => {
    bytes.set(p, at);
    starts[i] = at;
    at += p.length;
    ends[i] = at;
  });
  const valid = values.includes(null) ? Uint8Array.from(values, (v) => (v === null ? 0 : 1)) : null;
  return { kind: "string", bytes, starts, ends, valid };
}

function numbers(values: readonly (number | null)[]): NumberView {
  const valid = values.includes(null) ? Uint8Array.from(values, (v) => (v === null ? 0 : 1)) : null;
  return { kind: "number", values: Float64Array.from(values, (v) => v ?? 0), valid };
}

/** An int64 key view carrying exact words, as keyViewOf makes for values beyond ±(2^53 - 1). */
function int64s(values: readonly (bigint | null)[]): NumberView {
  const words = new Int32Array(2 * values.length);
  values.forEach((v, i) => {
    const x = BigInt.asUintN(64, v ?? 0n);
    words[2 * i] = Number(x & 0xffffffffn) | 0;
    words[2 * i + 1] = Number(x >> 32n) | 0;
  });
  return { ...numbers(values.map((v) => (v === null ? null : Number(v)))), words };
}

/** Rows in the order a sort gives, as the values of `pick`. */
const ordered = <T,>(order: Int32Array, pick: (row: number) => T): T[] => Array.from(order, pick);

describe("radixOrder", () => {
  it("orders rows by their words, most significant first, equal rows keeping their order", () => {
    const high = Uint32Array.of(2, 1, 2, 0xffffffff, 1, 0);
    const low = Uint32Array.of(5, 9, 5, 0, 3, 0x10000);
    expect(Array.from(radixOrder([high, low], 6))).toEqual([5, 4, 1, 0, 2, 3]);
  });

  it("orders doubles as Spark does: -Infinity < negatives < -0 = 0 < positives < +Infinity < NaN, nulls first", () => {
    const values = [3.5, NaN, -0, -1e-300, Infinity, 0, -Infinity, -2, null, 5e-324, -NaN];
    const view = numbers(values);
    const valid = Uint8Array.from(values, (v) => (v === null ? 0 : 1));
    const order = radixOrder([Uint32Array.from(valid), ...doubleWords(view.values, view.valid, values.length)], values.length);
    expect(ordered(order, (i) => values[i])).toEqual([null, -Infinity, -2, -1e-300, -0, 0, 5e-324, 3.5, Infinity, NaN, NaN]);
  });
});

describe("stringPrefixWords", () => {
  it("keys strings exactly when none is longer than the bytes its words hold", () => {
    expect(stringPrefixWords(...viewArgs(strings(["k1", "k999999", ""])), 3).exact).toBe(true);
    expect(stringPrefixWords(...viewArgs(strings(["k1", "k9999999"])), 2).exact).toBe(true);
    expect(stringPrefixWords(...viewArgs(strings(["0123456789abcdef"])), 1).exact).toBe(false);
  });

  it("orders a string padded with NUL bytes after the string itself, and a prefix before the longer string", () => {
    const values = [utf8.encode("ab\0"), utf8.encode("ab"), utf8.encode("a"), utf8.encode("ab\0\0\0\0\0"), utf8.encode("")];
    const { words } = stringPrefixWords(...viewArgs(strings(values)), values.length);
    expect(Array.from(radixOrder(words, values.length))).toEqual([4, 2, 1, 0, 3]);
  });

  it("leaves strings equal in their first 15 bytes to the comparator given to sortTies", () => {
    const values = ["shared-prefix-15-b", "shared-prefix-15-a", "shared-prefix-15", "shared-prefix-1"];
    const view = strings(values);
    const { words, exact } = stringPrefixWords(...viewArgs(view), values.length);
    expect(exact).toBe(false);
    const order = radixOrder(words, values.length);
    // "shared-prefix-1" is 15 bytes: keyed whole. The three longer ones tie, in row order.
    expect(ordered(order, (i) => values[i])).toEqual(["shared-prefix-1", "shared-prefix-15-b", "shared-prefix-15-a", "shared-prefix-15"]);
    sortTies(order, words, (a, b) => (values[a]! < values[b]! ? -1 : values[a]! > values[b]! ? 1 : a - b));
    expect(ordered(order, (i) => values[i])).toEqual(["shared-prefix-1", "shared-prefix-15", "shared-prefix-15-a", "shared-prefix-15-b"]);
  });
});

function viewArgs(v: StringView): [Uint8Array, Int32Array, Int32Array, Uint8Array | null] {
  return [v.bytes, v.starts, v.ends, v.valid];
}

describe("sortedRowOrder from RADIX_MIN_ROWS rows on", () => {
  const n = 3 * RADIX_MIN_ROWS + 17;
  const random = seededRandom(16);
  const pick = <T,>(choices: readonly T[]): T => choices[Math.floor(random() * choices.length)]!;
  const sometimesNull = <T,>(value: () => T): T | null => (random() < 0.05 ? null : value());

  const doubles = numbers(Array.from({ length: n }, () => sometimesNull(() => pick([NaN, -0, 0, Infinity, -Infinity, 5e-324, (random() - 0.5) * 1e6, Math.round(random() * 20)]))));
  const bigInts = int64s(Array.from({ length: n }, () => sometimesNull(() => pick([-(2n ** 63n), 2n ** 63n - 1n, 2n ** 53n + 1n, -(2n ** 53n) - 3n, BigInt(Math.round((random() - 0.5) * 100))]))));
  const shortText = strings(Array.from({ length: n }, () => sometimesNull(() => `k${Math.floor(random() * 5_000)}`)));
  const longText = strings(
    Array.from({ length: n }, () => sometimesNull(() => pick(["", "\0", "a\0", "é", "shared-prefix-of-many-keys-"]) + pick(["", "x", "\0", Math.floor(random() * 50).toString()]))),
  );
  const oneWindow: ColumnView = { kind: "window", starts: new Float64Array(n).fill(10_000), ends: new Float64Array(n).fill(20_000) };
  const windows: ColumnView = {
    kind: "window",
    starts: Float64Array.from({ length: n }, () => 2_000 * Math.floor(random() * 5)),
    ends: Float64Array.from({ length: n }, () => 10_000 + 2_000 * Math.floor(random() * 2)),
  };

  const cases: Record<string, readonly ColumnView[]> = {
    "doubles with NaN, -0, infinities and nulls": [doubles],
    "int64 words at both extremes, with nulls": [bigInts],
    "one window, then short string keys (an append-mode window close)": [oneWindow, shortText],
    "sliding windows, then short strings": [windows, shortText],
    "long strings with NUL bytes and shared prefixes, then doubles": [longText, doubles],
    "short strings, then long strings, then int64s": [shortText, longText, bigInts],
  };
  for (const [name, views] of Object.entries(cases)) {
    it(`gives the comparator sort's exact order: ${name}`, () => {
      expect(Array.from(sortedRowOrder(views, n))).toEqual(Array.from(comparatorRowOrder(views, n)));
    });
  }
});

describe("ORDER BY's stableOrder and stringRanks from RADIX_MIN_ROWS rows on", () => {
  const n = 2 * RADIX_MIN_ROWS + 5;
  const random = seededRandom(61);
  const column = (): { values: Float64Array; valid: Uint8Array } => ({
    values: Float64Array.from({ length: n }, () => [NaN, -0, 0, -Infinity, 1.5, -7, Math.floor(random() * 30)][Math.floor(random() * 7)]!),
    valid: Uint8Array.from({ length: n }, () => (random() < 0.1 ? 0 : 1)),
  });
  const a = column();
  const b = column();

  for (const [name, keys] of Object.entries({
    "ascending then descending, nulls first then last": [{ ...a, descending: false }, { ...b, descending: true }],
    "descending then ascending": [{ ...a, descending: true }, { ...b, descending: false }],
  })) {
    it(`gives the comparator sort's exact order: ${name}`, () => {
      expect(Array.from(stableOrder(keys, n) ?? [])).toEqual(Array.from(comparatorOrder(keys, n)));
    });
  }

  it("ranks strings in byte order, equal strings sharing a rank, long shared prefixes included", () => {
    const values = Array.from({ length: n }, () => `${random() < 0.5 ? "a-long-shared-prefix-" : ""}${Math.floor(random() * 40)}${random() < 0.2 ? "\0" : ""}`);
    const view = strings(values);
    const offsets = Int32Array.from([...view.starts, view.ends[n - 1]!]);
    const ranks = stringRanks({ offsets, bytes: view.bytes, indices: null }, n);
    const distinct = [...new Set(values)].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)));
    expect(Array.from(ranks)).toEqual(values.map((v) => distinct.indexOf(v)));
  });
});
