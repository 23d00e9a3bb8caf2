import { OptionError } from "../../errors/errors.js";
import type { FileSplit } from "./file-split.js";

/**
 * Cuts files into byte ranges of about `targetSplitBytes` so that a big file is decoded by several
 * tasks. A file of n bytes gets ceil(n / target) ranges of near-equal size (so no split is a
 * small leftover); empty files get none, as they hold no lines. Ranges need not fall on line
 * boundaries: `readSplit` gives each line to the range in which it starts.
 */
export function planFileSplits(files: readonly { readonly path: string; readonly size: number }[], targetSplitBytes: number): FileSplit[] {
  if (!Number.isSafeInteger(targetSplitBytes) || targetSplitBytes <= 0) {
    throw new OptionError(`the target split size must be a positive whole number of bytes, got ${targetSplitBytes}`);
  }
  const splits: FileSplit[] = [];
  for (const { path, size } of files) {
    const count = Math.ceil(size / targetSplitBytes);
    for (let i = 0; i < count; i++) {
      splits.push({ kind: "file", path, start: Math.round((i * size) / count), end: Math.round(((i + 1) * size) / count) });
    }
  }
  return splits;
}
