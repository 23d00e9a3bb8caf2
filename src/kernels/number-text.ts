import { integerText, setInt64FromText, setInt64Words } from "../batch/numeric-columns.js";

/**
 * Text <-> number and boolean conversions with Spark's (non-ANSI) cast rules: surrounding
 * whitespace is ignored, anything unparsable becomes null, integers accept and drop a fractional
 * part, and doubles print as Java's `Double.toString` does.
 */

const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const INTEGRAL = /^([+-]?)(\d+)(?:\.\d*)?$|^[+-]?\.\d+$/;
const SPECIAL_DOUBLES: Readonly<Record<string, number>> = {
  nan: NaN,
  inf: Infinity,
  "+inf": Infinity,
  infinity: Infinity,
  "+infinity": Infinity,
  "-inf": -Infinity,
  "-infinity": -Infinity,
};

/** A double from text, or null. Accepts Spark's special values (NaN, Infinity, inf) in any case. */
export function parseDouble(text: string): number | null {
  const s = text.trim();
  if (DECIMAL.test(s)) return Number(s);
  const special = SPECIAL_DOUBLES[s.toLowerCase()];
  return special === undefined ? null : special;
}

/**
 * An integer in [min, max] from text, or null. "12.9" gives 12 (the fraction is dropped, as Spark's
 * `UTF8String.toLong`); exponents and out-of-range values give null.
 */
export function parseIntegral(text: string, min: number, max: number): number | null {
  const s = text.trim();
  const m = INTEGRAL.exec(s);
  if (!m) return null;
  if (m[2] === undefined) return 0;
  const magnitude = Number(m[2]);
  const value = m[1] === "-" ? -magnitude : magnitude;
  return value < min || value > max ? null : value === 0 ? 0 : value;
}

/** Digit counts up to this are below 2^53, so `Number` reads them exactly. */
const EXACT_DIGITS = 15;

/**
 * An int64 from text into row `i` of `words`, exactly, by the rules of `parseIntegral`; false when
 * the text is no integer or does not fit int64. Longer digit strings are read through one BigInt.
 */
export function parseInt64Into(text: string, words: Int32Array, i: number): boolean {
  const m = INTEGRAL.exec(text.trim());
  if (!m) return false;
  const digits = m[2];
  if (digits === undefined) {
    setInt64Words(words, i, 0);
    return true;
  }
  if (digits.length > EXACT_DIGITS) return setInt64FromText(words, i, `${m[1]}${digits}`);
  const magnitude = Number(digits);
  setInt64Words(words, i, m[1] === "-" ? -magnitude : magnitude);
  return true;
}

const TRUE_TEXT = new Set(["t", "true", "y", "yes", "1"]);
const FALSE_TEXT = new Set(["f", "false", "n", "no", "0"]);

/** Spark's string -> boolean cast: t/true/y/yes/1 and f/false/n/no/0, any case; else null. */
export function parseBoolean(text: string): boolean | null {
  const s = text.trim().toLowerCase();
  if (TRUE_TEXT.has(s)) return true;
  if (FALSE_TEXT.has(s)) return false;
  return null;
}

/**
 * A double as Java's `Double.toString` prints it (what Spark's cast to string shows): "1.0",
 * "0.001", "1.0E7", "1.234E-5", "NaN", "Infinity". Plain notation for magnitudes in [1e-3, 1e7).
 */
export function formatDouble(x: number): string {
  if (x !== x) return "NaN";
  if (x === Infinity) return "Infinity";
  if (x === -Infinity) return "-Infinity";
  if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
  const abs = Math.abs(x);
  if (abs >= 1e-3 && abs < 1e7) {
    const s = String(x);
    return s.includes(".") ? s : `${s}.0`;
  }
  // toExponential() without digits gives the shortest round-tripping mantissa, like Java 19+. Java
  // always shows two digits; when one suffices it shows the two-digit value nearest to x (which is
  // "d.0" except for some subnormals: 5e-324 prints as 4.9E-324).
  let [mantissa, exponent] = x.toExponential().split("e");
  if (!mantissa.includes(".")) [mantissa, exponent] = x.toExponential(1).split("e");
  return `${mantissa}E${Number(exponent)}`;
}

/** An integral double as text, every digit exact (2^60 is "1152921504606846976"); never exponent notation. */
export function formatIntegral(x: number): string {
  return x === 0 ? "0" : integerText(x);
}
