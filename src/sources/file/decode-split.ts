import { decodeJsonLines } from "../../formats/json-lines.js";
import type { DecodeOptions, DecodeResult } from "../../formats/json-lines.js";
import { MalformedRecordError } from "../../errors/errors.js";
import type { Fields } from "../../types/dtype.js";
import { lineNumberAt, lineNumberAtSync } from "./line-number.js";
import type { ByteRange, SplitBytes } from "./read-split.js";
import { readSplit, readSplitSync } from "./read-split.js";

export type SplitDecodeOptions = Pick<DecodeOptions, "mode" | "columnNameOfCorruptRecord">;

/**
 * Reads a split and decodes its JSON lines. Line numbers in FAILFAST errors are those of the file:
 * when the split does not start the file its first line's number is unknown, so the bad line's
 * number is worked out (by counting the newlines before it) only once a record has failed.
 */
export async function decodeFileSplit(split: ByteRange, fields: Fields, options: SplitDecodeOptions): Promise<DecodeResult> {
  const outcome = decodeOrLocate(await readSplit(split), split.path, fields, options);
  if (outcome.kind === "decoded") return outcome.result;
  throw outcome.renumber(await lineNumberAt(split.path, outcome.fileOffset));
}

/** `decodeFileSplit` with blocking reads, for worker threads. */
export function decodeFileSplitSync(split: ByteRange, fields: Fields, options: SplitDecodeOptions): DecodeResult {
  const outcome = decodeOrLocate(readSplitSync(split), split.path, fields, options);
  if (outcome.kind === "decoded") return outcome.result;
  throw outcome.renumber(lineNumberAtSync(split.path, outcome.fileOffset));
}

type Outcome =
  | { readonly kind: "decoded"; readonly result: DecodeResult }
  /** A FAILFAST record whose line number must be looked up at `fileOffset`; `renumber` gives the error to throw. */
  | { readonly kind: "unnumbered"; readonly fileOffset: number; readonly renumber: (lineNumber: number) => unknown };

function decodeOrLocate(read: SplitBytes, path: string, fields: Fields, options: SplitDecodeOptions): Outcome {
  try {
    return { kind: "decoded", result: decodeJsonLines(read.bytes, fields, { ...options, file: path, firstLineNumber: read.firstLineNumber ?? 1 }) };
  } catch (e) {
    if (!(e instanceof MalformedRecordError) || read.firstLineNumber !== null || e.line === undefined) throw e;
    const line = lineWithin(read.bytes, e.line);
    // Decoding the bad line alone, numbered right, gives the same error with the file's line number.
    const renumber = (lineNumber: number): unknown => {
      try {
        decodeJsonLines(read.bytes.subarray(line.start, line.end), fields, { ...options, file: path, firstLineNumber: lineNumber });
      } catch (renumbered) {
        return renumbered;
      }
      return e;
    };
    return { kind: "unnumbered", fileOffset: read.fileOffset + line.start, renumber };
  }
}

/** Byte range of the n-th (1-based) line of `bytes`, line ending included. */
function lineWithin(bytes: Uint8Array, n: number): { start: number; end: number } {
  let start = 0;
  for (let i = 1; i < n; i++) start = bytes.indexOf(0x0a, start) + 1;
  const nl = bytes.indexOf(0x0a, start);
  return { start, end: nl < 0 ? bytes.length : nl + 1 };
}
