import { assertNever } from "../expr/ast.js";

/**
 * Calendar arithmetic on epoch milliseconds in UTC (Sluice's session time zone). Civil-date
 * conversion is done with integer formulas rather than `Date`, which maps years 0-99 to the
 * twentieth century and allocates an object per call.
 */

export const MS_PER_SECOND = 1000;
export const MS_PER_MINUTE = 60_000;
export const MS_PER_HOUR = 3_600_000;
export const MS_PER_DAY = 86_400_000;

/** a mod b with the sign of b, so negative times fall into the right bucket (never -0). */
export function floorMod(a: number, b: number): number {
  const r = a % b;
  return r !== 0 && (r < 0) !== (b < 0) ? r + b : r + 0;
}

/** Days since 1970-01-01 of a proleptic Gregorian date (month 1-12). */
export function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146097 + dayOfEra - 719468;
}

/** [year, month 1-12, day 1-31] of a day number since 1970-01-01. */
export function civilFromDays(days: number): [number, number, number] {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const dayOfEra = z - era * 146097;
  const yearOfEra = Math.floor((dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36524) - Math.floor(dayOfEra / 146096)) / 365);
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const mp = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return [yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day];
}

function daysInMonth(year: number, month: number): number {
  return daysFromCivil(month === 12 ? year + 1 : year, month === 12 ? 1 : month + 1, 1) - daysFromCivil(year, month, 1);
}

// yyyy[-[m]m[-[d]d[(T| )[h]h[:[m]m[:[s]s[.fraction]]]]]][zone], as Spark's string -> timestamp.
const TIMESTAMP_TEXT =
  /^([+-]?\d{4,6})(?:-(\d{1,2})(?:-(\d{1,2})(?:(?:T|\s+)(\d{1,2})(?::(\d{1,2})(?::(\d{1,2})(?:\.(\d{1,9}))?)?)?)?)?)?\s*(Z|UTC|GMT|[+-]\d{1,2}(?::?\d{2})?)?$/i;

/** Epoch ms of an ISO-8601 timestamp text (UTC unless it names an offset), or null. */
export function parseTimestamp(text: string): number | null {
  const m = TIMESTAMP_TEXT.exec(text.trim());
  if (!m) return null;
  const year = Number(m[1]);
  const month = m[2] === undefined ? 1 : Number(m[2]);
  const day = m[3] === undefined ? 1 : Number(m[3]);
  const hour = m[4] === undefined ? 0 : Number(m[4]);
  const minute = m[5] === undefined ? 0 : Number(m[5]);
  const second = m[6] === undefined ? 0 : Number(m[6]);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month) || hour > 23 || minute > 59 || second > 59) return null;
  // Sluice stores milliseconds: finer fractions are truncated.
  const millis = m[7] === undefined ? 0 : Number(m[7].slice(0, 3).padEnd(3, "0"));
  const offset = zoneOffsetMs(m[8]);
  if (offset === null) return null;
  return daysFromCivil(year, month, day) * MS_PER_DAY + hour * MS_PER_HOUR + minute * MS_PER_MINUTE + second * MS_PER_SECOND + millis - offset;
}

function zoneOffsetMs(zone: string | undefined): number | null {
  if (zone === undefined || /^(z|utc|gmt)$/i.test(zone)) return 0;
  const digits = zone.slice(1).replace(":", "");
  const hours = Number(digits.length <= 2 ? digits : digits.slice(0, digits.length - 2));
  const minutes = digits.length <= 2 ? 0 : Number(digits.slice(-2));
  if (hours > 18 || minutes > 59) return null;
  return (zone[0] === "-" ? -1 : 1) * (hours * MS_PER_HOUR + minutes * MS_PER_MINUTE);
}

function pad(n: number, width: number): string {
  return String(n).padStart(width, "0");
}

/**
 * Spark's text form of a timestamp in UTC: `yyyy-MM-dd HH:mm:ss`, followed by the fraction of a
 * second only when it is non-zero, without trailing zeros (".5", ".25", ".123"), as Spark prints it.
 */
export function formatTimestamp(ms: number): string {
  const days = Math.floor(ms / MS_PER_DAY);
  const inDay = ms - days * MS_PER_DAY;
  const [year, month, day] = civilFromDays(days);
  const yearText = year < 0 ? `-${pad(-year, 4)}` : year > 9999 ? `+${year}` : pad(year, 4);
  const time = `${pad(Math.floor(inDay / MS_PER_HOUR), 2)}:${pad(Math.floor(inDay / MS_PER_MINUTE) % 60, 2)}:${pad(Math.floor(inDay / MS_PER_SECOND) % 60, 2)}`;
  const millis = inDay % MS_PER_SECOND;
  const fraction = millis === 0 ? "" : `.${pad(millis, 3).replace(/0+$/, "")}`;
  return `${yearText}-${pad(month, 2)}-${pad(day, 2)} ${time}${fraction}`;
}

export type TruncUnit = "year" | "quarter" | "month" | "week" | "day" | "hour" | "minute" | "second" | "millisecond";

const TRUNC_UNITS: Readonly<Record<string, TruncUnit>> = {
  year: "year",
  yyyy: "year",
  yy: "year",
  quarter: "quarter",
  month: "month",
  mon: "month",
  mm: "month",
  week: "week",
  day: "day",
  dd: "day",
  hour: "hour",
  minute: "minute",
  second: "second",
  millisecond: "millisecond",
  microsecond: "millisecond",
};

/** A `date_trunc` unit from Spark's spellings (any case), or null when Spark would not know it. */
export function parseTruncUnit(text: string): TruncUnit | null {
  return TRUNC_UNITS[text.trim().toLowerCase()] ?? null;
}

/** Truncates epoch ms to the start of its unit in UTC; weeks start on Monday. */
export function truncTimestamp(unit: TruncUnit, ms: number): number {
  switch (unit) {
    case "millisecond":
      return ms;
    case "second":
      return ms - floorMod(ms, MS_PER_SECOND);
    case "minute":
      return ms - floorMod(ms, MS_PER_MINUTE);
    case "hour":
      return ms - floorMod(ms, MS_PER_HOUR);
    case "day":
      return ms - floorMod(ms, MS_PER_DAY);
    case "week": {
      // 1970-01-01 was a Thursday: three days after a Monday.
      const days = Math.floor(ms / MS_PER_DAY);
      return (days - floorMod(days + 3, 7)) * MS_PER_DAY;
    }
    case "month":
    case "quarter":
    case "year": {
      const [year, month] = civilFromDays(Math.floor(ms / MS_PER_DAY));
      const firstMonth = unit === "year" ? 1 : unit === "quarter" ? month - ((month - 1) % 3) : month;
      return daysFromCivil(year, firstMonth, 1) * MS_PER_DAY;
    }
    default:
      return assertNever(unit, "date_trunc unit");
  }
}

/** Hour of day (0-23) in UTC. */
export function hourOf(ms: number): number {
  return Math.floor(floorMod(ms, MS_PER_DAY) / MS_PER_HOUR);
}
