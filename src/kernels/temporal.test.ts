import { describe, expect, it } from "vitest";
import { formatDouble, parseDouble, parseIntegral } from "./number-text.js";
import { civilFromDays, daysFromCivil, floorMod, formatTimestamp, parseTimestamp } from "./temporal.js";

describe("civil dates", () => {
  it("agree with Date.UTC across four millennia, both ways", () => {
    for (let days = -800_000; days <= 800_000; days += 997) {
      const d = new Date(days * 86_400_000);
      expect(civilFromDays(days)).toEqual([d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate()]);
      expect(daysFromCivil(d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate())).toBe(days);
    }
  });

  it("floorMod is never negative for a positive divisor", () => {
    expect([floorMod(-1, 10), floorMod(-10, 10), floorMod(7, 10), floorMod(-0, 10)]).toEqual([9, 0, 7, 0]);
  });
});

describe("parseTimestamp", () => {
  it("reads Spark's ISO-8601 forms in UTC unless an offset is given", () => {
    expect(parseTimestamp("2024-1-5 7:08:09")).toBe(Date.UTC(2024, 0, 5, 7, 8, 9));
    expect(parseTimestamp(" 2024-01-01T00:00:00.123456Z ")).toBe(Date.UTC(2024, 0, 1, 0, 0, 0, 123));
    expect(parseTimestamp("2024-01-01T05:30+05:30")).toBe(Date.UTC(2024, 0, 1));
    expect(parseTimestamp("2024-06")).toBe(Date.UTC(2024, 5, 1));
    expect(parseTimestamp("2024-02-29")).toBe(Date.UTC(2024, 1, 29));
    expect(parseTimestamp("0050-03-01")).toBe(daysFromCivil(50, 3, 1) * 86_400_000);
  });

  it("returns null for impossible dates and other text", () => {
    expect(["2023-02-29", "2024-13-01", "2024-01-01 24:00:00", "01/02/2024", "", "2024-01-01T00:00:00+25:00"].map(parseTimestamp)).toEqual([null, null, null, null, null, null]);
  });

  it("formats years below 1000 with four digits", () => {
    expect(formatTimestamp(daysFromCivil(50, 3, 1) * 86_400_000 + 1)).toBe("0050-03-01 00:00:00.001");
  });
});

describe("number text", () => {
  it("parses like Spark's casts", () => {
    expect(parseDouble("  1e-3 ")).toBe(0.001);
    expect(parseDouble("1,5")).toBeNull();
    expect(parseIntegral("+42", -100, 100)).toBe(42);
    expect(parseIntegral("-0", -100, 100)).toBe(0);
    expect(parseIntegral("101", -100, 100)).toBeNull();
  });

  it("formats doubles like Java's Double.toString", () => {
    expect([100, 1234567.5, 0.001, 0.0001, 12345678, -1.5e-7, 5e-324].map(formatDouble)).toEqual(["100.0", "1234567.5", "0.001", "1.0E-4", "1.2345678E7", "-1.5E-7", "4.9E-324"]);
  });
});
