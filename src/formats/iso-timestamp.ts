/**
 * ISO-8601 timestamps read straight from bytes into epoch milliseconds, without making a string
 * or a Date. Accepted, as Spark's JSON reader does by default:
 *
 *   2024-05-01                              midnight UTC
 *   2024-05-01T12:00  / 2024-05-01 12:00    'T', 't' or a space between date and time
 *   2024-05-01T12:00:00.123456789           fraction of 1-9 digits, truncated to milliseconds
 *   ...Z / ...+02:00 / ...-0530 / ...+02    zone; none means UTC
 *
 * Anything else (or an impossible date such as 2023-02-29) gives NaN.
 */

const DIGIT_0 = 0x30;

/** Two-digit number at p, or -1. Callers check that p + 1 < end first. */
function twoDigits(src: Uint8Array, p: number): number {
  const a = src[p]! - DIGIT_0;
  const b = src[p + 1]! - DIGIT_0;
  return a >>> 0 <= 9 && b >>> 0 <= 9 ? a * 10 + b : -1;
}

function isLeapYear(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Days from 1970-01-01 to the proleptic Gregorian date y-m-d (Howard Hinnant's algorithm). */
export function daysFromCivil(y: number, m: number, d: number): number {
  const year = m <= 2 ? y - 1 : y;
  const era = Math.floor(year / 400);
  const yearOfEra = year - era * 400;
  const dayOfYear = Math.floor((153 * (m > 2 ? m - 3 : m + 9) + 2) / 5) + d - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146097 + dayOfEra - 719468;
}

const MS_PER_DAY = 86_400_000;
/** `epochDay` of a text that is not a date: outside every real day and still a small integer. */
const NO_DATE = -(2 ** 30);

/** Event streams repeat the same date for long runs: the last date's epoch day is kept. */
let cachedDateKey = -1;
let cachedEpochDay = 0;

/**
 * Days since 1970-01-01 of the date `src[p, p + 10)`, or NO_DATE. An integer result, unlike
 * milliseconds, is returned from a call without allocating.
 */
function epochDay(src: Uint8Array, p: number): number {
  if (src[p + 4] !== 0x2d || src[p + 7] !== 0x2d) return NO_DATE;
  const y1 = twoDigits(src, p);
  const y2 = twoDigits(src, p + 2);
  const month = twoDigits(src, p + 5);
  const day = twoDigits(src, p + 8);
  if (y1 < 0 || y2 < 0 || month < 0 || day < 0) return NO_DATE;
  const year = y1 * 100 + y2;
  const key = (year * 100 + month) * 100 + day;
  if (key === cachedDateKey) return cachedEpochDay;
  if (month < 1 || month > 12 || day < 1) return NO_DATE;
  const monthDays = month === 2 && isLeapYear(year) ? 29 : DAYS_IN_MONTH[month - 1]!;
  if (day > monthDays) return NO_DATE;
  cachedDateKey = key;
  cachedEpochDay = daysFromCivil(year, month, day);
  return cachedEpochDay;
}

const result = new Float64Array(1);

/** Epoch milliseconds of the timestamp text `src[start, end)`, or NaN when it is not one. */
export function parseIsoTimestamp(src: Uint8Array, start: number, end: number): number {
  return isoTimestampInto(src, start, end, result, 0) ? result[0]! : NaN;
}

/**
 * `parseIsoTimestamp` for hot loops: the milliseconds go to `out[index]` and the return value only
 * says whether the text was a timestamp. Returning a double from a call that is not inlined
 * allocates a heap number each time; a typed-array slot does not.
 */
export function isoTimestampInto(src: Uint8Array, start: number, end: number, out: Float64Array, index: number): boolean {
  if (end - start < 10) return false;
  const day = epochDay(src, start);
  if (day === NO_DATE) return false;
  let p = start + 10;
  if (p === end) {
    out[index] = day * MS_PER_DAY;
    return true;
  }

  // Time of day: [T|t|space]HH:MM[:SS[.fraction]]
  const sep = src[p];
  if ((sep !== 0x54 && sep !== 0x74 && sep !== 0x20) || end - p < 6 || src[p + 3] !== 0x3a) return false;
  const hour = twoDigits(src, p + 1);
  const minute = twoDigits(src, p + 4);
  if (hour < 0 || hour > 23 || minute < 0 || minute > 59) return false;
  p += 6;
  let second = 0;
  let millis = 0;
  if (p < end && src[p] === 0x3a) {
    if (end - p < 3) return false;
    second = twoDigits(src, p + 1);
    if (second < 0 || second > 59) return false;
    p += 3;
    if (p < end && src[p] === 0x2e) {
      const fractionStart = ++p;
      while (p < end && (src[p]! - DIGIT_0) >>> 0 <= 9) {
        // Only the first three digits count: finer precision is truncated, as Timestamp(ms) must.
        if (p - fractionStart < 3) millis = millis * 10 + (src[p]! - DIGIT_0);
        p++;
      }
      const digits = p - fractionStart;
      if (digits === 0 || digits > 9) return false;
      for (let i = digits; i < 3; i++) millis *= 10;
    }
  }

  // Zone: Z, +HH:MM, +HHMM, +HH (or '-'); none means UTC.
  let offsetMinutes = 0;
  if (p < end) {
    const zone = src[p];
    if (zone === 0x5a || zone === 0x7a) {
      p++;
    } else if (zone === 0x2b || zone === 0x2d) {
      if (end - p < 3) return false;
      const hours = twoDigits(src, p + 1);
      if (hours < 0 || hours > 18) return false;
      p += 3;
      let minutes = 0;
      if (p < end) {
        if (src[p] === 0x3a) p++;
        if (end - p < 2) return false;
        minutes = twoDigits(src, p);
        if (minutes < 0 || minutes > 59) return false;
        p += 2;
      }
      offsetMinutes = (zone === 0x2d ? -1 : 1) * (hours * 60 + minutes);
    } else {
      return false;
    }
  }
  if (p !== end) return false;
  out[index] = day * MS_PER_DAY + ((hour * 60 + minute - offsetMinutes) * 60 + second) * 1000 + millis;
  return true;
}
