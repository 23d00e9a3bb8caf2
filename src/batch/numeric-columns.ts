/**
 * Numeric and temporal Arrow columns: the one place Sluice reads them into the form kernels
 * compute on and builds them back from typed arrays. This module states the rules and exports
 * the modules beside it that follow them (listed at the end), one concept each.
 *
 * Kernel form. A number, boolean or time column is a Float64Array (times in epoch milliseconds,
 * booleans 0 / 1) plus one validity byte per row (1 = valid), or null when no row is null. Values
 * at null rows are unspecified: no rule below ever looks at them.
 *
 * Sluice's own Arrow types are Float64, Int32, Int64, Bool and Timestamp(MILLISECOND) without a
 * time zone (schema/arrow-types.ts). `canonicalColumn` converts any other numeric or temporal type
 * into them once, where data enters (`session.fromArrow`); the readers accept every type anyway,
 * by the same rules.
 *
 * int64. Arrow JS backs Int64 with a BigInt64Array; Sluice reads it as little-endian (low, high)
 * pairs of 32-bit words, so no BigInt is made per value. A double holds every integer within
 * ±(2^53 - 1) (`Number.MAX_SAFE_INTEGER`) exactly, and there float64 kernels are exact. Beyond:
 *   - values that pass through untouched stay exact: projection (zero-copy), filter, sort and
 *     join output (gathered as words), concatenation, worker transfer, `toArrow()`;
 *   - grouping, dropDuplicates and join keys and sort order compare the words themselves, so
 *     2^53 and 2^53 + 1 are two keys (`readInt64` hands the words to them);
 *   - exact conversions read the words: cast to string, `to_json`, cast to int32 (the low word)
 *     and to boolean; cast to float64 rounds to the nearest double, as Spark's long -> double;
 *   - everything that computes with the value as a double (arithmetic, comparisons, aggregates,
 *     `collect()` into JavaScript numbers) raises NumericRangeError naming the column, rather
 *     than answering with a rounded value (`readNumbers`).
 * Results computed in float64 (sums, arithmetic) are written to int64 exactly while integral and
 * within ±(2^53 - 1). Past that the double may already have been rounded, so `int64FromNumbers`
 * raises NumericRangeError: where Spark's exact long overflows at 2^63 (ARITHMETIC_OVERFLOW in
 * ANSI mode), a double stops being exact at 2^53. Explicit casts from double follow Java's
 * `(long)` conversion instead (`int64WordsFromDoubles`): truncation toward zero, NaN to 0,
 * saturation at the int64 bounds, the double's integer written exactly.
 *
 * Times. Timestamps of every unit (with a time zone or without: the values are UTC instants) and
 * dates become epoch milliseconds once, when read: seconds are multiplied by 1000; microseconds
 * and nanoseconds are floored, toward negative infinity, as Spark's `DateTimeUtils.microsToMillis`
 * does with `Math.floorDiv` (1969-12-31T23:59:59.999999 is -1 ms, not 0); Date32 days are
 * multiplied by 86 400 000; Date64 is milliseconds already. The division runs on the word pairs,
 * so nanosecond values (beyond 2^53 for any date after 1970-04-15) convert exactly. Milliseconds
 * must lie within ±8.64e15, JavaScript's Date range (±100 000 000 days); a time outside it raises
 * NumericRangeError. Times are written back as Timestamp(MILLISECOND), fractions of a millisecond
 * floored.
 *
 * Modules.
 *   - int64-words.ts: int64 as pairs of 32-bit words, with exact conversions and text;
 *   - epoch-millis.ts: times read into epoch milliseconds and written back, within the Date range;
 *   - read-numbers.ts: any column as doubles (`readNumbers`), or with its exact words (`readInt64`);
 *   - numeric-builders.ts: Sluice's columns built from typed arrays, words or computed doubles;
 *   - canonical-column.ts: any numeric or temporal Arrow type converted into Sluice's own.
 */

export { canonicalColumn, type CanonicalKind } from "./canonical-column.js";
export { MAX_TIMESTAMP_MS, MS_PER_DAY, timestampWordsOf } from "./epoch-millis.js";
export {
  firstInexactRow,
  int64Residuals,
  int64Text,
  int64WordsFromDoubles,
  int64WordsOf,
  int64WordsOfProducts,
  integerText,
  isExactInteger,
  isExactWords,
  MAX_EXACT_INTEGER,
  setInt64FromBigInt,
  setInt64FromText,
  setInt64Words,
  wordsToNumber,
  wordsToNumbers,
} from "./int64-words.js";
export {
  float64Column,
  int32Column,
  int64Column,
  int64ColumnOfWords,
  int64FromNumbers,
  numberColumn,
  type NumericDType,
  requireExactIntegers,
  timestampColumn,
  timestampColumnOfWords,
} from "./numeric-builders.js";
export { type Int64Read, int64BeyondRangeError, readInt64, readNumbers } from "./read-numbers.js";
