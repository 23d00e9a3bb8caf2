import { describe, expect, it } from "vitest";
import { daysFromCivil, parseIsoTimestamp } from "./iso-timestamp.js";

const parse = (text: string) => {
  const bytes = new TextEncoder().encode(text);
  return parseIsoTimestamp(bytes, 0, bytes.length);
};

describe("parseIsoTimestamp", () => {
  it.each([
    ["2024-05-01", Date.UTC(2024, 4, 1)],
    ["2024-05-01T12:34", Date.UTC(2024, 4, 1, 12, 34)],
    ["2024-05-01 12:34:56", Date.UTC(2024, 4, 1, 12, 34, 56)],
    ["2024-05-01T12:34:56.7", Date.UTC(2024, 4, 1, 12, 34, 56, 700)],
    ["2024-05-01T12:34:56.789999999Z", Date.UTC(2024, 4, 1, 12, 34, 56, 789)],
    ["2024-05-01T00:30:00+01:00", Date.UTC(2024, 3, 30, 23, 30)],
    ["2024-05-01T00:30:00-0130", Date.UTC(2024, 4, 1, 2, 0)],
    ["0001-01-01T00:00:00Z", Date.UTC(2000, 0, 1) - 730_119 * 86_400_000],
    ["9999-12-31T23:59:59.999Z", Date.UTC(9999, 11, 31, 23, 59, 59, 999)],
  ])("reads %s", (text, millis) => {
    expect(parse(text)).toBe(millis);
  });

  it.each([
    "",
    "2024-5-01",
    "2024-13-01",
    "2024-00-10",
    "2023-02-29",
    "2024-04-31",
    "2024-05-01T24:00",
    "2024-05-01T12:60",
    "2024-05-01T12:00:60",
    "2024-05-01T12",
    "2024-05-01T12:00:",
    "2024-05-01T12:00:00.",
    "2024-05-01T12:00:00.1234567890",
    "2024-05-01T12:00:00+19:00",
    "2024-05-01T12:00:00+01:",
    "2024-05-01T12:00:00Zjunk",
    "2024-05-01X12:00:00",
    "yesterday",
  ])("rejects %j", (text) => {
    expect(parse(text)).toBeNaN();
  });

  it("counts days like Date.UTC, across leap years and before 1970", () => {
    for (const [y, m, d] of [
      [1970, 1, 1],
      [1969, 12, 31],
      [2000, 2, 29],
      [1900, 3, 1],
      [2024, 12, 31],
      [1600, 2, 29],
    ] as const) {
      expect(daysFromCivil(y, m, d) * 86_400_000).toBe(Date.UTC(y, m - 1, d));
    }
  });
});
