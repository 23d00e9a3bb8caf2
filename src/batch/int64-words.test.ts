import { describe, expect, it } from "vitest";
import { int64Text, int64WordsFromDoubles, int64WordsOfProducts, setInt64FromText } from "./int64-words.js";
import { TWO_53 } from "./test-support.js";

describe("int64 words: text, parsing and exact conversions", () => {
  it("prints every int64 exactly without a BigInt, from the words", () => {
    const values = [0n, -1n, TWO_53 + 1n, -(TWO_53 + 1n), 10n ** 18n, 2n ** 63n - 1n, -(2n ** 63n), -4294967296n, 4294967295n];
    const words = new Int32Array(BigInt64Array.from(values).buffer);
    expect(values.map((_, i) => int64Text(words[2 * i]!, words[2 * i + 1]!))).toEqual(values.map(String));
  });

  it("parses integer text of any length within the int64 range", () => {
    const words = new Int32Array(6);
    expect(setInt64FromText(words, 0, "-9223372036854775808")).toBe(true);
    expect(setInt64FromText(words, 1, "9007199254740993")).toBe(true);
    expect(setInt64FromText(words, 2, "9223372036854775808")).toBe(false);
    expect(Array.from(new BigInt64Array(words.buffer)).slice(0, 2)).toEqual([-(2n ** 63n), TWO_53 + 1n]);
  });

  it("int64WordsFromDoubles follows Java's (long) conversion: truncation, NaN to 0, saturation, exact beyond 2^53", () => {
    const words = int64WordsFromDoubles(Float64Array.of(-2.7, NaN, 1e19, -1e19, 2 ** 60, -(2 ** 63), Infinity, -Infinity));
    expect(Array.from(new BigInt64Array(words.buffer))).toEqual([-2n, 0n, 2n ** 63n - 1n, -(2n ** 63n), 2n ** 60n, -(2n ** 63n), 2n ** 63n - 1n, -(2n ** 63n)]);
  });

  it("int64WordsOfProducts multiplies without rounding, past 2^53", () => {
    const ms = Float64Array.of(8.64e15, -8.64e15, -1, 1_700_000_000_123);
    expect(Array.from(new BigInt64Array(int64WordsOfProducts(ms, 1000).buffer))).toEqual([8_640_000_000_000_000_000n, -8_640_000_000_000_000_000n, -1000n, 1_700_000_000_123_000n]);
  });
});
