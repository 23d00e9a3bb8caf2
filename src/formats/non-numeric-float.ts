/**
 * The strings Spark's JSON reader accepts for a float64 field besides JSON numbers (its
 * `allowNonNumericNumbers` option, on by default): "NaN", "Infinity", "+Infinity", "-Infinity",
 * "+INF" and "-INF".
 */

const encoder = new TextEncoder();

const NON_NUMERIC: readonly [Uint8Array, number][] = [
  ["NaN", NaN],
  ["Infinity", Infinity],
  ["+Infinity", Infinity],
  ["-Infinity", -Infinity],
  ["+INF", Infinity],
  ["-INF", -Infinity],
].map(([text, value]) => [encoder.encode(text as string), value as number]);

/** The value the string content `src[start, end)` stands for, or undefined when it is none of them. */
export function nonNumericFloat(src: Uint8Array, start: number, end: number): number | undefined {
  for (const [bytes, value] of NON_NUMERIC) {
    if (bytes.length !== end - start) continue;
    let same = true;
    for (let i = 0; i < bytes.length && same; i++) same = bytes[i] === src[start + i];
    if (same) return value;
  }
  return undefined;
}
