import type { ReadPlan } from "./file-reads.js";
import { readFileAsync, readFileSync, readFully } from "./file-reads.js";

const NEWLINE = 0x0a;
const CHUNK_BYTES = 1024 * 1024;

/**
 * Line number (1-based) of the line holding byte `byteOffset`: one plus the newlines before it.
 * It reads the file up to that offset, so it is meant for error messages (a FAILFAST record in a
 * split that does not start the file), not for every split.
 */
export function* lineNumberPlan(byteOffset: number): ReadPlan<number> {
  const buffer = new Uint8Array(Math.min(CHUNK_BYTES, Math.max(1, byteOffset)));
  let newlines = 0;
  for (let position = 0; position < byteOffset; ) {
    const got = yield* readFully(buffer, 0, Math.min(buffer.length, byteOffset - position), position);
    if (got === 0) break;
    for (let nl = buffer.indexOf(NEWLINE); nl >= 0 && nl < got; nl = buffer.indexOf(NEWLINE, nl + 1)) newlines++;
    position += got;
  }
  return newlines + 1;
}

export function lineNumberAt(path: string, byteOffset: number): Promise<number> {
  return readFileAsync(path, lineNumberPlan(byteOffset));
}

export function lineNumberAtSync(path: string, byteOffset: number): number {
  return readFileSync(path, lineNumberPlan(byteOffset));
}
