import { AnalysisError, OptionError } from "../errors/errors.js";
import { readIntervalString } from "./interval-string.js";

const MS_PER_DAY = 86_400_000;

/**
 * A watermark delay counts a month as 31 days, as Spark's EventTimeWatermark.getDelayMs does: the
 * delay only bounds how late rows may be, so it needs one length for every month, and the
 * longest keeps every row that any calendar month would keep.
 */
const DAYS_PER_MONTH = 31;

/**
 * The delay of `withWatermark(column, delay)` in milliseconds, by Spark's rules: any of Spark's
 * interval strings (config/interval-string.ts), months and years included, or a number of
 * milliseconds. A string that is not an interval is an AnalysisError, as in Spark; a delay that
 * comes to less than zero (months at 31 days, so "1 month -40 days" is negative) an OptionError.
 * Spark keeps microseconds and drops them in its delay, so fractions of a millisecond are dropped.
 */
export function watermarkDelayMs(delay: string | number, column: string): number {
  const call = `withWatermark("${column}", ${JSON.stringify(delay)})`;
  let ms: number;
  if (typeof delay === "number") {
    if (Number.isNaN(delay) || !Number.isFinite(delay)) throw new OptionError(`${call}: the delay threshold must be a finite number of milliseconds or an interval such as "10 minutes"`);
    ms = delay;
  } else {
    const interval = readIntervalString(delay);
    if (!interval) {
      throw new AnalysisError(
        `${call}: cannot parse "${delay}" as an interval for the delay threshold; write a number and a unit ("10 minutes", "1 day 2 hours", "1 month") ` +
          `or an ANSI interval (interval '10' minute, interval '1 02:03:04' day to second, interval '1-2' year to month)`,
      );
    }
    ms = interval.months * DAYS_PER_MONTH * MS_PER_DAY + interval.ms;
  }
  if (ms < 0) {
    throw new OptionError(`${call}: the delay threshold should not be negative; give how far behind the latest event time a row may still arrive, e.g. "10 minutes"`);
  }
  return Math.trunc(ms);
}
