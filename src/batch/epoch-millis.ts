import * as arrow from "apache-arrow";
import { InternalError, NumericRangeError } from "../errors/errors.js";
import { floorDivWords, int64WordsOf, TWO_32 } from "./int64-words.js";
import { firstValidWhere } from "./validity.js";

/**
 * Times as kernels see them, epoch milliseconds in doubles: timestamps of every unit and dates
 * read into them, and written back as Timestamp(MILLISECOND) words, both checked against the Date
 * range. The rules (units, flooring, the range) are stated in numeric-columns.ts.
 */

/** JavaScript's Date range in epoch milliseconds: the range of Sluice timestamps. */
export const MAX_TIMESTAMP_MS = 8.64e15;
export const MS_PER_DAY = 86_400_000;

/** True for epoch milliseconds within the Date range (false for NaN). */
function isTime(t: number): boolean {
  return t >= -MAX_TIMESTAMP_MS && t <= MAX_TIMESTAMP_MS;
}

function timeOutOfRange(ms: number, column: string | undefined): NumericRangeError {
  const where = column === undefined ? "a time column" : `time column "${column}"`;
  return new NumericRangeError(
    `${where} holds ${Number.isNaN(ms) ? "NaN" : `${ms} ms since the epoch`}, outside ±8.64e15 ms (JavaScript's Date range, ` +
      "years -271821 to 275760) that Sluice timestamps cover; filter or correct such rows before they reach Sluice",
  );
}

/**
 * A Timestamp (any unit, any time zone) or Date column as epoch milliseconds, checked against the
 * Date range; `column` names the column in the message.
 */
export function readMillis(data: arrow.Data, column: string | undefined): Float64Array {
  const type = data.type;
  if (arrow.DataType.isTimestamp(type)) {
    return type.unit === arrow.TimeUnit.MILLISECOND ? millisOfWords(data, column) : checkedTimes(timestampMillis(data, type.unit), data, column);
  }
  if (arrow.DataType.isDate(type)) {
    if (type.unit === arrow.DateUnit.MILLISECOND) return millisOfWords(data, column);
    const n = data.length;
    const days = data.values as Int32Array;
    const out = new Float64Array(n);
    const msPerDay = MS_PER_DAY;
    for (let i = 0; i < n; i++) out[i] = days[i]! * msPerDay;
    return checkedTimes(out, data, column);
  }
  throw new InternalError(`column of Arrow type ${type} read as epoch milliseconds`);
}

/**
 * A column of 64-bit milliseconds (Timestamp(ms), Date64) as doubles, checked against the Date
 * range in the same pass: this is Sluice's own time column, read on every batch.
 */
function millisOfWords(data: arrow.Data, column: string | undefined): Float64Array {
  const n = data.length;
  const words = int64WordsOf(data);
  const out = new Float64Array(n);
  let outside = false;
  const twoTo32 = TWO_32;
  const limit = MAX_TIMESTAMP_MS;
  for (let i = 0; i < n; i++) {
    const t = words[2 * i + 1]! * twoTo32 + (words[2 * i]! >>> 0);
    out[i] = t;
    if (Math.abs(t) > limit) outside = true;
  }
  return outside ? checkedTimes(out, data, column) : out;
}

/** Epoch milliseconds of a Timestamp column in seconds, microseconds or nanoseconds. */
function timestampMillis(data: arrow.Data, unit: arrow.TimeUnit): Float64Array {
  const n = data.length;
  const words = int64WordsOf(data);
  switch (unit) {
    case arrow.TimeUnit.MILLISECOND:
    case arrow.TimeUnit.SECOND: {
      // Exact wherever the result is within the Date range; anything else fails the range check.
      const out = new Float64Array(n);
      const scale = unit === arrow.TimeUnit.SECOND ? 1000 : 1;
      const twoTo32 = TWO_32;
      for (let i = 0; i < n; i++) out[i] = (words[2 * i + 1]! * twoTo32 + (words[2 * i]! >>> 0)) * scale;
      return out;
    }
    case arrow.TimeUnit.MICROSECOND:
      return floorDivided(words, n, 1000);
    case arrow.TimeUnit.NANOSECOND:
      return floorDivided(words, n, 1_000_000);
  }
}

function floorDivided(words: Int32Array, n: number, divisor: number): Float64Array {
  const q = Math.floor(TWO_32 / divisor);
  const r = TWO_32 - q * divisor;
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = floorDivWords(words[2 * i]!, words[2 * i + 1]!, divisor, q, r);
  return out;
}

/** `millis`, after checking that every valid row lies within the Date range. */
function checkedTimes(millis: Float64Array, data: arrow.Data, column: string | undefined): Float64Array {
  let outside = false;
  for (let i = 0; i < millis.length; i++) {
    const t = millis[i]!;
    if (!(t >= -MAX_TIMESTAMP_MS && t <= MAX_TIMESTAMP_MS)) outside = true;
  }
  if (!outside) return millis;
  const row = firstValidWhere(data, (i) => !isTime(millis[i]!));
  if (row >= 0) throw timeOutOfRange(millis[row]!, column);
  return millis;
}

/**
 * Timestamp words of epoch-ms doubles, fractions floored; a valid time outside the Date range
 * raises. What null rows hold is unspecified.
 */
export function timestampWords(millis: Float64Array, isValid: (i: number) => boolean): Int32Array {
  const n = millis.length;
  const words = new Int32Array(2 * n);
  let outside = false;
  const twoTo32 = TWO_32;
  const limit = MAX_TIMESTAMP_MS;
  for (let i = 0; i < n; i++) {
    const t = Math.floor(millis[i]!);
    const hi = Math.floor(t / twoTo32);
    words[2 * i] = t - hi * twoTo32;
    words[2 * i + 1] = hi;
    if (!(Math.abs(t) <= limit)) outside = true;
  }
  if (outside) {
    for (let i = 0; i < n; i++) if (!isTime(Math.floor(millis[i]!)) && isValid(i)) throw timeOutOfRange(millis[i]!, undefined);
  }
  return words;
}

/**
 * Timestamp words of epoch-ms doubles (fractions floored), checking the rows that `valid` marks
 * (all when null): for columns whose rows are null through a parent, such as window bounds.
 */
export function timestampWordsOf(millis: Float64Array, valid: Uint8Array | null): Int32Array {
  return timestampWords(millis, valid === null ? () => true : (i) => valid[i] === 1);
}
