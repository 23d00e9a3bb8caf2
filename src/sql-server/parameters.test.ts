import { describe, expect, it } from "vitest";
import { PgError } from "./error-response.js";
import { decodeParameter, parameterReadings, sqlLiteral } from "./parameters.js";
import { PG } from "./pg-types.js";

const enc = (s: string) => new TextEncoder().encode(s);
const literal = (value: string | null, oid: number) => sqlLiteral(decodeParameter(value === null ? null : enc(value), oid, 0, 0));
const binaryLiteral = (hex: string, oid: number) => sqlLiteral(decodeParameter(Buffer.from(hex, "hex"), oid, 1, 0));

function failure(f: () => unknown): { code: string; message: string } {
  try {
    f();
  } catch (e) {
    if (e instanceof PgError) return { code: e.code, message: e.message };
    throw e;
  }
  throw new Error("no error");
}

describe("bind parameters as SQL literals of their types", () => {
  it("gives a parameter without a type every reading its text allows, the string last", () => {
    const readings = (value: string) => parameterReadings(decodeParameter(enc(value), 0, 0, 0));
    expect(readings("2")).toEqual(["2L", "'2'"]);
    expect(readings("-2")).toEqual(["(-2L)", "'-2'"]);
    expect(readings("2.5")).toEqual(["2.5D", "'2.5'"]);
    expect(readings("2026-12-02T10:00:00.000+01:00")).toEqual(["CAST('2026-12-02T09:00:00.000Z' AS TIMESTAMP)", "'2026-12-02T10:00:00.000+01:00'"]);
    expect(readings("true")).toEqual(["TRUE", "'true'"]);
    expect(readings("cat")).toEqual(["'cat'"]);
    expect(readings("it's a \\ path")).toEqual(["'it\\'s a \\\\ path'"]);
    expect(parameterReadings(decodeParameter(null, 0, 0, 0))).toEqual(["NULL"]);
    // Bytes without a type, as the pg package sends a Buffer (binary format).
    expect(parameterReadings(decodeParameter(Uint8Array.of(0, 255), 0, 1, 0))).toEqual(["unbase64('AP8=')"]);
  });

  it("checks typed text parameters as Postgres's input functions do", () => {
    expect(literal(" 42 ", PG.int4.oid)).toBe("42");
    expect(literal("5000000000", PG.int8.oid)).toBe("5000000000L");
    expect(literal("NaN", PG.float8.oid)).toBe("CAST('NaN' AS DOUBLE)");
    expect(literal("1e3", PG.float8.oid)).toBe("1000D");
    expect(literal("yes", PG.bool.oid)).toBe("TRUE");
    expect(literal("f", PG.bool.oid)).toBe("FALSE");
    expect(literal("\\x00ff", PG.bytea.oid)).toBe("unbase64('AP8=')");
    expect(literal("2026-12-02 10:00:00+01", PG.timestamptz.oid)).toBe("CAST('2026-12-02T09:00:00.000Z' AS TIMESTAMP)");
    expect(literal("7", PG.text.oid)).toBe("'7'");
    expect(failure(() => literal("seven", PG.int4.oid))).toEqual({ code: "22P02", message: 'invalid input syntax for type integer: "seven"' });
    expect(failure(() => literal("70000", PG.int2.oid))).toEqual({ code: "22003", message: 'value "70000" is out of range for type smallint' });
    expect(failure(() => literal("maybe", PG.bool.oid))).toEqual({ code: "22P02", message: 'invalid input syntax for type boolean: "maybe"' });
  });

  it("decodes binary parameters of the fixed-size types", () => {
    expect(binaryLiteral("0000002a", PG.int4.oid)).toBe("42");
    expect(binaryLiteral("fffffffffffffffe", PG.int8.oid)).toBe("(-2L)");
    expect(binaryLiteral("3ff8000000000000", PG.float8.oid)).toBe("1.5D");
    expect(binaryLiteral("01", PG.bool.oid)).toBe("TRUE");
    expect(binaryLiteral("00000000000003e8", PG.timestamptz.oid)).toBe("CAST('2000-01-01T00:00:00.001Z' AS TIMESTAMP)");
    expect(binaryLiteral("6869", PG.text.oid)).toBe("'hi'");
    expect(failure(() => binaryLiteral("00", PG.int4.oid))).toEqual({ code: "08P01", message: "incorrect binary data format in bind parameter 1" });
    expect(failure(() => binaryLiteral("0001", PG.numeric.oid))).toEqual({
      code: "0A000",
      message: "binary format of parameter $1 (type OID 1700) is not supported; send it in text format",
    });
  });
});
