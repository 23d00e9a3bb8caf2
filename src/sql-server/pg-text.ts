import { civilFromDays, MS_PER_DAY, MS_PER_HOUR, MS_PER_MINUTE, MS_PER_SECOND } from "../kernels/temporal.js";

/**
 * Values as Postgres prints them in text format, so clients that parse Postgres's output (psql's
 * alignment, the pg package's type parsers, BI drivers) read Sluice's values as their own.
 */

/**
 * A float8 as Postgres 12+ prints it (extra_float_digits 1, its default): the shortest digits that
 * read back as the same double, plain for decimal exponents in [-4, 15), otherwise `1e+15`,
 * `1.5e-05` (at least two exponent digits); NaN, Infinity, -Infinity; negative zero as "-0".
 */
export function float8Text(x: number): string {
  if (x !== x) return "NaN";
  if (x === Infinity) return "Infinity";
  if (x === -Infinity) return "-Infinity";
  if (x === 0) return Object.is(x, -0) ? "-0" : "0";
  // toExponential() without digits gives the shortest round-tripping digits, as Postgres's Ryu does.
  const [mantissa, exponentText] = x.toExponential().split("e") as [string, string];
  const exponent = Number(exponentText);
  // Within Postgres's fixed range JavaScript's own text has the same digits, in plain notation.
  if (exponent >= -4 && exponent < 15) return String(x);
  const digits = String(Math.abs(exponent)).padStart(2, "0");
  return `${mantissa}e${exponent < 0 ? "-" : "+"}${digits}`;
}

/**
 * A timestamp (epoch ms) as Postgres prints a timestamptz with DateStyle ISO in time zone UTC:
 * `2026-12-02 09:00:00+00`, the fraction of a second only when non-zero and without trailing
 * zeros (`.5`, `.123`), years before 1 AD as `0044-03-15 00:00:00+00 BC`.
 */
export function timestamptzText(ms: number): string {
  const days = Math.floor(ms / MS_PER_DAY);
  const inDay = ms - days * MS_PER_DAY;
  const [year, month, day] = civilFromDays(days);
  // Postgres has no year 0: the year before 1 AD is 1 BC.
  const bc = year <= 0;
  const shownYear = bc ? 1 - year : year;
  const millis = inDay % MS_PER_SECOND;
  const fraction = millis === 0 ? "" : `.${pad(millis, 3).replace(/0+$/, "")}`;
  const time = `${pad(Math.floor(inDay / MS_PER_HOUR), 2)}:${pad(Math.floor(inDay / MS_PER_MINUTE) % 60, 2)}:${pad(Math.floor(inDay / MS_PER_SECOND) % 60, 2)}`;
  return `${pad(shownYear, 4)}-${pad(month, 2)}-${pad(day, 2)} ${time}${fraction}+00${bc ? " BC" : ""}`;
}

const HEX = "0123456789abcdef";

/** bytea in Postgres's hex output format (bytea_output 'hex'): `\x` and two lower-case digits a byte. */
export function byteaHex(bytes: Uint8Array): string {
  let out = "\\x";
  for (let i = 0; i < bytes.length; i++) out += HEX[bytes[i]! >> 4]! + HEX[bytes[i]! & 15]!;
  return out;
}

function pad(n: number, width: number): string {
  return String(n).padStart(width, "0");
}
