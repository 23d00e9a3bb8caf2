import { AnalysisError } from "../errors/errors.js";
import type { Expr, ExprOf } from "./ast.js";

/**
 * Interval literals, as Spark's `INTERVAL '1 hour 30 minutes'` / `interval 10 minutes`: a signed
 * number and a unit, repeated. Sluice keeps times in epoch milliseconds, so an interval is a
 * number of milliseconds, and only day-time units exist: a month or a year has no fixed length
 * (Spark adds them on the calendar), and a part of a millisecond could not be added to a time.
 */
const UNIT_MS: Readonly<Record<string, number>> = {
  week: 604_800_000,
  day: 86_400_000,
  hour: 3_600_000,
  minute: 60_000,
  second: 1000,
  millisecond: 1,
  microsecond: 0.001,
};

const CALENDAR_UNITS = new Set(["year", "month"]);

const PART = /^\s*([+-]?\d+(?:\.\d+)?)\s*([a-z]+)/i;

/** Milliseconds of interval text such as "1 hour" or "-2 days 3 hours" (a leading "interval" is allowed). */
export function parseInterval(text: string): number {
  let rest = text.trim().replace(/^interval\s+/i, "");
  if (rest === "") throw new AnalysisError(`cannot parse "${text}" as an interval: it names no unit, e.g. interval("10 minutes")`);
  let ms = 0;
  while (rest.trim() !== "") {
    const m = PART.exec(rest);
    const unit = m ? singular(m[2]!.toLowerCase()) : "";
    if (m && CALENDAR_UNITS.has(unit)) {
      throw new AnalysisError(
        `interval "${text}": ${unit}s have no fixed length and Sluice adds day-time intervals only (weeks, days, hours, minutes, seconds, milliseconds); use days instead`,
      );
    }
    const unitMs = UNIT_MS[unit];
    if (!m || unitMs === undefined) {
      throw new AnalysisError(`cannot parse "${text}" as an interval: use a number and a unit such as "10 minutes", "1 hour 30 minutes" or "500 milliseconds"`);
    }
    ms += Number(m[1]) * unitMs;
    rest = rest.slice(m[0].length);
  }
  const rounded = Math.round(ms);
  // Fractions of a unit are fine ("1.5 seconds") as long as the whole is milliseconds.
  if (Math.abs(ms - rounded) > 1e-6) throw new AnalysisError(`interval "${text}" is ${ms} ms: Sluice keeps times in whole milliseconds`);
  return rounded;
}

const singular = (unit: string): string => {
  const short: Record<string, string> = { ms: "millisecond", us: "microsecond", s: "second", sec: "second", secs: "second", min: "minute", mins: "minute", h: "hour", d: "day" };
  return short[unit] ?? (unit.endsWith("s") ? unit.slice(0, -1) : unit);
};

/** The interval literal expression of `text`. */
export function intervalExpr(text: string): ExprOf<"interval"> {
  return { kind: "interval", ms: parseInterval(text), text: text.trim().replace(/^interval\s+/i, "") };
}

/** Spark's error for an interval anywhere but beside a timestamp in `+` / `-`. */
export function intervalOutsideTimeArithmetic(e: Expr): AnalysisError {
  return new AnalysisError(
    `an interval (${e.kind === "interval" ? `INTERVAL '${e.text}'` : "interval"}) can only be added to or subtracted from a timestamp, e.g. col("time").plus(interval("10 minutes")); Sluice has no interval column type`,
  );
}
