import { describe, expect, it } from "vitest";
import { parseDuration } from "./duration.js";
import { readIntervalString } from "./interval-string.js";

const DAY = 86_400_000;

describe("Spark's interval strings", () => {
  it.each([
    ["10 seconds", 0, 10_000],
    ["1 hour -30 minutes", 0, 1_800_000],
    ["500 ms", 0, 500],
    ["1.5 seconds", 0, 1500],
    ["2 years 5 months", 29, 0],
    ["1 year -13 months", -1, 0],
    ["1 month -40 days", 1, -40 * DAY],
    ["interval 3 day", 0, 3 * DAY],
    ["INTERVAL '3' DAY", 0, 3 * DAY],
    ["interval '1' day '2' hours", 0, DAY + 7_200_000],
    ["interval '1 day 2 hours'", 0, DAY + 7_200_000],
    ["interval '1-2' year to month", 14, 0],
    ["interval '-1-2' year to month", -14, 0],
    ["interval '1 2' day to hour", 0, DAY + 7_200_000],
    ["interval '1 2:3' day to minute", 0, DAY + 7_380_000],
    ["interval '1 2:3:4.5' day to second", 0, DAY + 7_384_500],
    ["interval '26:3' hour to minute", 0, 26 * 3_600_000 + 180_000],
    ["interval '2:3:4' hour to second", 0, 7_384_000],
    ["interval '90:30' minute to second", 0, 5_430_000],
  ])("%j is %i months and %i ms", (text, months, ms) => {
    expect(readIntervalString(text)).toEqual({ months, ms });
  });

  it.each([
    "",
    "interval",
    "ten minutes",
    "1 foo",
    "10",
    "1.5 months",
    "'3' day",
    "interval 1-2 year to month",
    "interval '1-12' year to month",
    "interval '1 24' day to hour",
    "interval '1 2:60' day to minute",
    "interval '1 2' hour to day",
    "interval '1 2' day to day",
  ])("%j is not an interval", (text) => {
    expect(readIntervalString(text)).toBeNull();
  });

  it("gives durations (windows, triggers, timeouts) of fixed length only", () => {
    expect(parseDuration("interval '1 02:03:04' day to second", "windowDuration")).toBe(DAY + 7_384_000);
    expect(() => parseDuration("1 month", "windowDuration")).toThrow(
      'windowDuration: "1 month" counts months or years, which have no fixed length; give the duration in days or smaller units, e.g. "30 days"',
    );
    expect(() => parseDuration("soon", "windowDuration")).toThrow('windowDuration: cannot parse "soon" as a duration');
  });
});
