import { unescapeInto } from "./json-escapes.js";
import { asciiText } from "./json-number.js";
import type { JsonScanner } from "./json-scanner.js";
import { OPEN_BRACE, OPEN_BRACKET, QUOTE } from "./json-scanner.js";

/**
 * Words for messages about bad values. Error path only: these allocate freely.
 */

const decoder = new TextDecoder();
const MAX_QUOTED_CHARS = 60;

/** UTF-8 text of JSON string content `src[start, end)`, unescaped when `escaped`. */
export function jsonStringText(src: Uint8Array, start: number, end: number, escaped: boolean): string {
  if (!escaped) return decoder.decode(src.subarray(start, end));
  const out = new Uint8Array(end - start);
  return decoder.decode(out.subarray(0, unescapeInto(src, start, end, out, 0)));
}

/** A string quoted for a message, shortened when long. */
export function quoted(text: string): string {
  const shown = text.length > MAX_QUOTED_CHARS ? `${text.slice(0, MAX_QUOTED_CHARS)}...` : text;
  return JSON.stringify(shown);
}

/**
 * What the JSON value at `p` is, for "expects X, got Y" messages: `string "abc"`, `number 1.5`,
 * `boolean true`, `object`, `array`. Scanning it first also validates it, so a value that is not
 * JSON at all is reported as a syntax problem instead.
 */
export function describeJsonValue(scanner: JsonScanner, p: number): string {
  const src = scanner.src;
  const end = scanner.skipValue(p, 1);
  switch (src[p]) {
    case QUOTE:
      return `string ${quoted(jsonStringText(src, scanner.strStart, scanner.strEnd, scanner.strEscaped))}`;
    case OPEN_BRACE:
      return "object";
    case OPEN_BRACKET:
      return "array";
    case 0x74:
    case 0x66:
      return `boolean ${asciiText(src, p, end)}`;
    case 0x6e:
      return "null";
    default:
      return `number ${asciiText(src, p, end)}`;
  }
}
