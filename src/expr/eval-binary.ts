import { type EntryBytes, base64Texts, bytesOfBase64, hexTexts, textOfBytes } from "../kernels/binary.js";
import { entryCount, spreadEntries } from "../kernels/columns.js";
import { type NumVec, restrictValidity, type StrVec } from "./eval-vec.js";

/**
 * Functions on binary values, as Spark's: the byte kernels of kernels/binary.ts over vectors.
 * Binary and string vectors share one shape (`StrVec`), so each of these also reads a string as
 * its UTF-8 bytes (Spark's implicit string -> binary cast); work runs once per dictionary entry.
 */

function sameRows(v: StrVec, entries: EntryBytes, valid: Uint8Array | null = v.valid): StrVec {
  return { kind: "str", strings: { offsets: entries.offsets, bytes: entries.bytes, indices: v.strings.indices }, valid };
}

/** `cast(binary as string)`: UTF-8 text, malformed sequences as U+FFFD. */
export function bytesAsText(v: StrVec, n: number): StrVec {
  return sameRows(v, textOfBytes(v.strings, n));
}

/** `cast(string as binary)`: the text's UTF-8 bytes. A fresh vector: the column's type changes. */
export function textAsBytes(v: StrVec): StrVec {
  return { kind: "str", strings: v.strings, valid: v.valid };
}

/** `base64(bin)`: text. */
export function base64(v: StrVec, n: number): StrVec {
  return sameRows(v, base64Texts(v.strings, n));
}

/** `unbase64(str)`: bytes; null where the text is not base64. */
export function unbase64(v: StrVec, n: number): StrVec {
  const decoded = bytesOfBase64(v.strings, n);
  return sameRows(v, decoded, restrictValidity(v.valid, spreadEntries(decoded.decoded, v.strings, n)));
}

/** `hex(bin)` / `hex(str)`: upper-case hex digits. */
export function hex(v: StrVec, n: number): StrVec {
  return sameRows(v, hexTexts(v.strings, n));
}

/** `length(bin)`: bytes, where `length(str)` counts characters. */
export function byteLength(v: StrVec, n: number): NumVec {
  const view = v.strings;
  const entries = entryCount(view, n);
  const perEntry = new Float64Array(entries);
  for (let e = 0; e < entries; e++) perEntry[e] = view.offsets[e + 1] - view.offsets[e];
  return { kind: "num", values: spreadEntries(perEntry, view, n), valid: v.valid };
}
