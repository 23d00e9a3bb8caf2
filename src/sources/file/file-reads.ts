import { closeSync, openSync, readSync } from "node:fs";
import { open } from "node:fs/promises";
import { SluiceError } from "../../errors/errors.js";
import { osErrorText } from "./os-error.js";

/**
 * Reading logic is written once, as a generator that yields the reads it needs and receives the
 * number of bytes each one got (0 at end of file). `readFileSync` and `readFileAsync` carry the
 * reads out with blocking calls (for workers) or promises (for the driver), so the split and
 * line-number logic has a single copy for both.
 */

export interface ReadRequest {
  readonly buffer: Uint8Array;
  readonly offset: number;
  readonly length: number;
  /** File position to read from. */
  readonly position: number;
}

export type ReadPlan<T> = Generator<ReadRequest, T, number>;

function readError(path: string, error: unknown): SluiceError {
  return new SluiceError(`cannot read input file ${path}: ${osErrorText(error)}`, { cause: error });
}

export function readFileSync<T>(path: string, plan: ReadPlan<T>): T {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch (e) {
    throw readError(path, e);
  }
  try {
    let step = plan.next(0);
    while (!step.done) {
      const r = step.value;
      let got: number;
      try {
        got = readSync(fd, r.buffer, r.offset, r.length, r.position);
      } catch (e) {
        throw readError(path, e);
      }
      step = plan.next(got);
    }
    return step.value;
  } finally {
    closeSync(fd);
  }
}

export async function readFileAsync<T>(path: string, plan: ReadPlan<T>): Promise<T> {
  let handle;
  try {
    handle = await open(path, "r");
  } catch (e) {
    throw readError(path, e);
  }
  try {
    let step = plan.next(0);
    while (!step.done) {
      const r = step.value;
      let got: number;
      try {
        got = (await handle.read(r.buffer, r.offset, r.length, r.position)).bytesRead;
      } catch (e) {
        throw readError(path, e);
      }
      step = plan.next(got);
    }
    return step.value;
  } finally {
    await handle.close();
  }
}

/** Reads `length` bytes at `position` into `buffer[offset, ...)`, fewer only at end of file; yields the count. */
export function* readFully(buffer: Uint8Array, offset: number, length: number, position: number): ReadPlan<number> {
  let filled = 0;
  while (filled < length) {
    const n = yield { buffer, offset: offset + filled, length: length - filled, position: position + filled };
    if (n === 0) break;
    filled += n;
  }
  return filled;
}
