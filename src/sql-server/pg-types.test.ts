import { describe, expect, it } from "vitest";
import { rowsToBatch } from "../batch/rows.js";
import type { DType, Fields } from "../types/dtype.js";
import { byteaHex, float8Text, timestamptzText } from "./pg-text.js";
import { columnCells, pgTypeOf } from "./pg-types.js";

const utf8 = new TextDecoder();

/** Every row's cell of column 0, as text (format 0) or as hex bytes (format 1); null stays null. */
function cellsOf(type: DType, values: unknown[], format: 0 | 1): (string | null)[] {
  const fields: Fields = [{ name: "v", type, nullable: true }];
  const batch = rowsToBatch(
    values.map((v) => ({ v })),
    fields,
  );
  const cells = columnCells(batch.columns[0]!, fields[0]!, batch.numRows, format);
  return values.map((_, i) => {
    const cell = cells(i);
    if (cell === null) return null;
    return format === 0 ? utf8.decode(cell) : Buffer.from(cell).toString("hex");
  });
}

describe("Postgres types of Sluice's columns", () => {
  it("maps each column type to a Postgres type OID and size", () => {
    const mapped = (["boolean", "int32", "int64", "float64", "string", "binary", "timestamp", "window", "headers"] as const).map((t) => [t, pgTypeOf(t).oid, pgTypeOf(t).size]);
    expect(mapped).toEqual([
      ["boolean", 16, 1],
      ["int32", 23, 4],
      ["int64", 20, 8],
      ["float64", 701, 8],
      ["string", 25, -1],
      ["binary", 17, -1],
      ["timestamp", 1184, 8],
      ["window", 114, -1],
      ["headers", 114, -1],
    ]);
  });
});

describe("text format, as Postgres prints values", () => {
  it("prints float8 with the shortest exact digits, in exponent form outside [1e-4, 1e15)", () => {
    const xs = [1.5, 0.1 + 0.2, 1 / 3, 1e15, 123456789012345, 1e14, 0.0001, 0.00001, -2.5e-7, 1.7976931348623157e308, 5e-324, 0, -0, NaN, Infinity, -Infinity, 42];
    expect(xs.map(float8Text)).toEqual([
      "1.5",
      "0.30000000000000004",
      "0.3333333333333333",
      "1e+15",
      "123456789012345",
      "100000000000000",
      "0.0001",
      "1e-05",
      "-2.5e-07",
      "1.7976931348623157e+308",
      "5e-324",
      "0",
      "-0",
      "NaN",
      "Infinity",
      "-Infinity",
      "42",
    ]);
  });

  it("prints timestamps as timestamptz in UTC, fractions without trailing zeros, BC years", () => {
    expect(timestamptzText(Date.UTC(2026, 11, 2, 9, 0, 0))).toBe("2026-12-02 09:00:00+00");
    expect(timestamptzText(Date.UTC(2026, 11, 2, 9, 0, 5, 120))).toBe("2026-12-02 09:00:05.12+00");
    expect(timestamptzText(Date.UTC(1969, 11, 31, 23, 59, 59, 999))).toBe("1969-12-31 23:59:59.999+00");
    expect(timestamptzText(Date.UTC(-43, 2, 15))).toBe("0044-03-15 00:00:00+00 BC");
    expect(timestamptzText(Date.UTC(12026, 0, 1))).toBe("12026-01-01 00:00:00+00");
  });

  it("prints bytea in hex", () => {
    expect(byteaHex(Uint8Array.of(0, 255, 16, 0xab))).toBe("\\x00ff10ab");
    expect(byteaHex(new Uint8Array(0))).toBe("\\x");
  });

  it("encodes each column type's values, nulls as null", () => {
    expect(cellsOf("boolean", [true, false, null], 0)).toEqual(["t", "f", null]);
    expect(cellsOf("int32", [7, -2147483648, null], 0)).toEqual(["7", "-2147483648", null]);
    expect(cellsOf("int64", [9007199254740993n, -5, null], 0)).toEqual(["9007199254740993", "-5", null]);
    expect(cellsOf("float64", [2.5, 1e20, null], 0)).toEqual(["2.5", "1e+20", null]);
    expect(cellsOf("string", ["héllo", "", null], 0)).toEqual(["héllo", "", null]);
    expect(cellsOf("binary", [Uint8Array.of(1, 2, 254), null], 0)).toEqual(["\\x0102fe", null]);
    expect(cellsOf("timestamp", [new Date("2026-12-02T09:00:00.500Z"), null], 0)).toEqual(["2026-12-02 09:00:00.5+00", null]);
    const window = { start: new Date("2026-12-02T09:00:00Z"), end: new Date("2026-12-02T09:05:00Z") };
    expect(cellsOf("window", [window, null], 0)).toEqual(['{"start":"2026-12-02T09:00:00.000Z","end":"2026-12-02T09:05:00.000Z"}', null]);
    const headers = [{ key: "trace", value: Uint8Array.of(0x74, 0x31) }, { key: "empty", value: null }];
    expect(cellsOf("headers", [headers, [], null], 0)).toEqual(['[{"key":"trace","value":"dDE="},{"key":"empty"}]', "[]", null]);
  });
});

describe("binary format, as Postgres sends values", () => {
  it("sends fixed-size values big-endian", () => {
    expect(cellsOf("boolean", [true, false], 1)).toEqual(["01", "00"]);
    expect(cellsOf("int32", [5, -1], 1)).toEqual(["00000005", "ffffffff"]);
    expect(cellsOf("int64", [-2, 9007199254740993n, null], 1)).toEqual(["fffffffffffffffe", "0020000000000001", null]);
    expect(cellsOf("float64", [1.5], 1)).toEqual(["3ff8000000000000"]);
  });

  it("sends timestamptz as microseconds since 2000-01-01 UTC", () => {
    expect(cellsOf("timestamp", [new Date("2000-01-01T00:00:00.001Z"), new Date("1999-12-31T23:59:59Z")], 1)).toEqual(["00000000000003e8", "fffffffffff0bdc0"]);
  });

  it("sends text, bytea and json as their bytes", () => {
    expect(cellsOf("string", ["ab"], 1)).toEqual(["6162"]);
    expect(cellsOf("binary", [Uint8Array.of(0, 1)], 1)).toEqual(["0001"]);
    const window = { start: new Date(0), end: new Date(1000) };
    expect(cellsOf("window", [window], 1)).toEqual([Buffer.from('{"start":"1970-01-01T00:00:00.000Z","end":"1970-01-01T00:00:01.000Z"}').toString("hex")]);
  });
});
