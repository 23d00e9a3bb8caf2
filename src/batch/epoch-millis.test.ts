import * as arrow from "apache-arrow";
import { describe, expect, it } from "vitest";
import { NumericRangeError } from "../errors/errors.js";
import { readNumbers } from "./read-numbers.js";
import { wideColumn } from "./test-support.js";

describe("readNumbers: times in epoch milliseconds", () => {
  // 1965-01-01T10:11:12.123456Z, Spark's own example for DateTimeUtils.microsToMillis.
  const SPARK_EXAMPLE_MICROS = -157700927876544n;

  it("multiplies seconds, keeps milliseconds, and floors microseconds and nanoseconds toward negative infinity", () => {
    expect(Array.from(readNumbers(wideColumn(new arrow.TimestampSecond(), [-1n, 0n, 1700000000n])))).toEqual([-1000, 0, 1_700_000_000_000]);
    expect(Array.from(readNumbers(wideColumn(new arrow.TimestampMillisecond(), [-1n, 1_700_000_000_123n])))).toEqual([-1, 1_700_000_000_123]);
    expect(Array.from(readNumbers(wideColumn(new arrow.TimestampMicrosecond(), [-1n, -999n, -1000n, -1001n, 999n, 1999n, SPARK_EXAMPLE_MICROS])))).toEqual([
      -1, -1, -1, -2, 0, 1, -157700927877,
    ]);
    expect(Array.from(readNumbers(wideColumn(new arrow.TimestampNanosecond(), [-1n, -1_000_000n, -1_000_001n, 999_999n, SPARK_EXAMPLE_MICROS * 1000n])))).toEqual([
      -1, -1, -2, 0, -157700927877,
    ]);
  });

  it("converts nanoseconds beyond 2^53 exactly, where a double would round into the next millisecond", () => {
    const nanos = 1_700_000_000_123_999_999n; // as a double this is ...124000000
    expect(Number(nanos)).toBe(1_700_000_000_124_000_000);
    expect(Array.from(readNumbers(wideColumn(new arrow.TimestampNanosecond(), [nanos, -nanos])))).toEqual([1_700_000_000_123, -1_700_000_000_124]);
  });

  it("reads a time zone's instants as they are (values are UTC)", () => {
    expect(Array.from(readNumbers(wideColumn(new arrow.TimestampMicrosecond("Europe/Paris"), [1_500n])))).toEqual([1]);
    expect(Array.from(readNumbers(wideColumn(new arrow.TimestampMillisecond("UTC"), [-5n])))).toEqual([-5]);
  });

  it("reads Date32 days before and after 1970 and Date64 milliseconds", () => {
    const days = arrow.makeData({ type: new arrow.DateDay(), length: 3, data: Int32Array.of(-1, 0, 19723) });
    expect(Array.from(readNumbers(days))).toEqual([-86_400_000, 0, 19723 * 86_400_000]);
    expect(Array.from(readNumbers(wideColumn(new arrow.DateMillisecond(), [-86_400_000n, 1_704_067_200_000n])))).toEqual([-86_400_000, 1_704_067_200_000]);
  });

  it("raises for a valid time outside JavaScript's Date range, whatever its unit", () => {
    const outside: [arrow.Data, string][] = [
      [wideColumn(new arrow.TimestampMillisecond(), [8_640_000_000_000_001n]), "8640000000000001 ms"],
      [wideColumn(new arrow.TimestampSecond(), [-8_640_000_000_001n]), "-8640000000001000 ms"],
      // Beyond 2^53 ms the message shows the nearest double.
      [wideColumn(new arrow.TimestampMicrosecond(), [2n ** 63n - 1n]), "9223372036854774 ms"],
      [arrow.makeData({ type: new arrow.DateDay(), length: 1, data: Int32Array.of(100_000_001) }), "8640000086400000 ms"],
    ];
    for (const [data, text] of outside) {
      expect(() => readNumbers(data, "t")).toThrow(NumericRangeError);
      expect(() => readNumbers(data, "t")).toThrow(`time column "t" holds ${text}`);
    }
    expect(Array.from(readNumbers(wideColumn(new arrow.TimestampMillisecond(), [8_640_000_000_000_000n, -8_640_000_000_000_000n])))).toEqual([8.64e15, -8.64e15]);
    expect(Array.from(readNumbers(wideColumn(new arrow.TimestampMillisecond(), [1n, 2n ** 62n], [1, 0])))).toEqual([1, 2 ** 62]);
  });
});
