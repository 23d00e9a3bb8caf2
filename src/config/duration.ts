import { OptionError } from "../errors/errors.js";

const UNIT_MS: Record<string, number> = {
  ms: 1,
  millisecond: 1,
  milliseconds: 1,
  s: 1000,
  sec: 1000,
  secs: 1000,
  second: 1000,
  seconds: 1000,
  m: 60_000,
  min: 60_000,
  mins: 60_000,
  minute: 60_000,
  minutes: 60_000,
  h: 3_600_000,
  hour: 3_600_000,
  hours: 3_600_000,
  d: 86_400_000,
  day: 86_400_000,
  days: 86_400_000,
  week: 604_800_000,
  weeks: 604_800_000,
};

const PART = /^\s*(-?\d+(?:\.\d+)?)\s*([a-z]+)\s*/i;

/**
 * Parses Spark's interval strings ("10 minutes", "1 hour 30 minutes", "500 ms", optionally
 * prefixed by "interval") or a number of milliseconds. `option` names the argument in errors.
 */
export function parseDuration(value: string | number, option: string): number {
  if (typeof value === "number") {
    if (!Number.isFinite(value) || value < 0) {
      throw new OptionError(`${option}: expected a non-negative number of milliseconds or a string such as "10 seconds", got ${value}`);
    }
    return value;
  }
  let rest = value.trim().replace(/^interval\s+/i, "");
  if (rest === "") throw new OptionError(`${option}: expected a duration such as "10 seconds", got an empty string`);
  let total = 0;
  while (rest.length > 0) {
    const m = PART.exec(rest);
    const unit = m ? UNIT_MS[m[2]!.toLowerCase()] : undefined;
    if (!m || unit === undefined) {
      throw new OptionError(
        `${option}: cannot parse "${value}" as a duration; use a number and a unit such as "10 seconds", "5 minutes" or "1 hour"`,
      );
    }
    total += Number(m[1]) * unit;
    rest = rest.slice(m[0].length);
  }
  if (total < 0) throw new OptionError(`${option}: duration "${value}" is negative`);
  return total;
}
