import type { FileSplit } from "./file-split.js";
import type { ReadPlan } from "./file-reads.js";
import { readFileAsync, readFileSync, readFully } from "./file-reads.js";

const NEWLINE = 0x0a;
/** Read past the split's end in steps of this size (doubling) until the last line is complete. */
const OVERHANG_BYTES = 64 * 1024;

export type ByteRange = Pick<FileSplit, "path" | "start" | "end">;

export interface SplitBytes {
  /** The whole lines that start inside the split, with their line endings. */
  readonly bytes: Uint8Array;
  /** File position of `bytes[0]`. */
  readonly fileOffset: number;
  /**
   * Line number (1-based) of the first line in `bytes`: known for a split at the start of its
   * file, null otherwise (it would take a scan of the file before it; see `lineNumberAt`).
   */
  readonly firstLineNumber: number | null;
}

/**
 * The lines that START in [start, end): a line belongs to the split holding its first byte, so
 * splits of one file, read separately, give each line exactly once. A split not at the start of
 * the file skips the partial line it begins in (the previous split reads it) and every split reads
 * past `end` to finish its last line.
 */
export function* splitReadPlan(split: ByteRange): ReadPlan<SplitBytes> {
  const { start, end } = split;
  const firstLineNumber = start === 0 ? 1 : null;
  if (end <= start) return { bytes: new Uint8Array(0), fileOffset: start, firstLineNumber };
  // One byte before `start` tells whether a line starts right at `start`.
  const origin = start === 0 ? 0 : start - 1;
  const rangeLength = end - origin;
  let buffer = new Uint8Array(rangeLength + OVERHANG_BYTES);
  let filled = yield* readFully(buffer, 0, rangeLength, origin);
  let atEof = filled < rangeLength;

  let first = 0;
  if (start > 0) {
    const nl = indexOfNewline(buffer, 0, filled);
    if (nl < 0 || nl + 1 >= rangeLength) return { bytes: new Uint8Array(0), fileOffset: start, firstLineNumber };
    first = nl + 1;
  }

  // The last line starting in the range ends at the first newline at or after the range's last byte.
  let searchFrom = rangeLength - 1;
  let stop = indexOfNewline(buffer, searchFrom, filled);
  while (stop < 0 && !atEof) {
    if (filled === buffer.length) {
      const larger = new Uint8Array(buffer.length + Math.max(OVERHANG_BYTES, buffer.length - rangeLength));
      larger.set(buffer);
      buffer = larger;
    }
    searchFrom = filled;
    const got = yield* readFully(buffer, filled, buffer.length - filled, origin + filled);
    atEof = got < buffer.length - filled;
    filled += got;
    stop = indexOfNewline(buffer, searchFrom, filled);
  }
  const endIndex = stop < 0 ? filled : stop + 1;
  return { bytes: buffer.subarray(first, endIndex), fileOffset: origin + first, firstLineNumber };
}

function indexOfNewline(buffer: Uint8Array, from: number, to: number): number {
  const nl = buffer.indexOf(NEWLINE, from);
  return nl >= 0 && nl < to ? nl : -1;
}

export function readSplit(split: ByteRange): Promise<SplitBytes> {
  return readFileAsync(split.path, splitReadPlan(split));
}

/** `readSplit` with blocking reads, for worker threads where a task runs synchronously. */
export function readSplitSync(split: ByteRange): SplitBytes {
  return readFileSync(split.path, splitReadPlan(split));
}
