/**
 * CRC-32C (Castagnoli, reflected polynomial 0x82F63B78): the checksum Kafka stores in every v2
 * record batch, over the bytes from `attributes` to the end of the batch.
 *
 * Node has no built-in CRC-32C and the checksum covers every fetched byte, so it is one of the
 * decoder's biggest costs (9% of W1's profile with the JS path). `@node-rs/crc32` (an optional
 * dependency shipping a native binary per platform) computes it at 3-5 GB/s on one core against
 * about 1.4 GB/s for the JS slicing-by-16 below, which stays as the fallback when no binary loads.
 * A native call costs about 200 ns however short the range, so ranges under
 * `NATIVE_MIN_BYTES` stay in JS, where they are as fast or faster.
 */
import { createRequire } from "node:module";

type NativeCrc32c = (input: Uint8Array, initialState?: number) => number;

/** Below this many bytes the native call's fixed overhead outweighs its speed (measured: equal near 256). */
const NATIVE_MIN_BYTES = 256;

/** The standard check: CRC-32C of the ASCII digits "123456789". */
const CHECK_INPUT = new TextEncoder().encode("123456789");
const CHECK_VALUE = 0xe3069283;

/** The native checksum, or null where the optional package or its platform binary is missing. */
const NATIVE: NativeCrc32c | null = loadNative();

function loadNative(): NativeCrc32c | null {
  try {
    const loaded = createRequire(import.meta.url)("@node-rs/crc32") as { crc32c?: unknown };
    const candidate = loaded.crc32c;
    // A binary that loads but answers wrongly (a broken build) must not checksum anything.
    if (typeof candidate === "function" && (candidate as NativeCrc32c)(CHECK_INPUT) >>> 0 === CHECK_VALUE) {
      return candidate as NativeCrc32c;
    }
  } catch {
    // No package or no binary for this platform: the JS path below serves.
  }
  return null;
}

/** Which implementation `crc32c` uses for ranges of at least `NATIVE_MIN_BYTES`. */
export const crc32cImplementation: "native" | "js" = NATIVE === null ? "js" : "native";

/** CRC-32C of `bytes[start, end)`, as an unsigned 32-bit number. */
export function crc32c(bytes: Uint8Array, start = 0, end = bytes.length): number {
  if (NATIVE !== null && end - start >= NATIVE_MIN_BYTES) {
    // A subarray is a view over the same memory: the native code reads the bytes in place.
    return NATIVE(start === 0 && end === bytes.length ? bytes : bytes.subarray(start, end)) >>> 0;
  }
  return crc32cJs(bytes, start, end);
}

const POLYNOMIAL = 0x82f63b78;
const SLICES = 16;

/** Sixteen tables back to back: entry n of table k is the CRC of byte n followed by k zero bytes. */
const TABLES = buildTables();

/** Word reads assume little-endian memory, true on every platform Node ships for. */
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

function buildTables(): Int32Array {
  const tables = new Int32Array(SLICES * 256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ POLYNOMIAL : c >>> 1;
    tables[n] = c;
  }
  for (let n = 0; n < 256; n++) {
    let c = tables[n]!;
    for (let t = 1; t < SLICES; t++) {
      c = tables[c & 0xff]! ^ (c >>> 8);
      tables[t * 256 + n] = c;
    }
  }
  return tables;
}

/** The JS path alone (slicing-by-16, about 1.4 GB/s): the fallback, exported so tests check it too. */
export function crc32cJs(bytes: Uint8Array, start = 0, end = bytes.length): number {
  const t = TABLES;
  let crc = -1;
  let i = start;
  // Bytes one at a time until the position is 4-byte aligned, so the middle can be read as words.
  while (i < end && ((bytes.byteOffset + i) & 3) !== 0) crc = t[(crc ^ bytes[i++]!) & 0xff]! ^ (crc >>> 8);
  const wordCount = LITTLE_ENDIAN ? ((end - i) >> 4) << 2 : 0;
  if (wordCount > 0) {
    const words = new Int32Array(bytes.buffer, bytes.byteOffset + i, wordCount);
    for (let j = 0; j < wordCount; j += 4) {
      const a = crc ^ words[j]!;
      const b = words[j + 1]!;
      const c = words[j + 2]!;
      const d = words[j + 3]!;
      crc =
        t[3840 + (a & 0xff)]! ^
        t[3584 + ((a >>> 8) & 0xff)]! ^
        t[3328 + ((a >>> 16) & 0xff)]! ^
        t[3072 + (a >>> 24)]! ^
        t[2816 + (b & 0xff)]! ^
        t[2560 + ((b >>> 8) & 0xff)]! ^
        t[2304 + ((b >>> 16) & 0xff)]! ^
        t[2048 + (b >>> 24)]! ^
        t[1792 + (c & 0xff)]! ^
        t[1536 + ((c >>> 8) & 0xff)]! ^
        t[1280 + ((c >>> 16) & 0xff)]! ^
        t[1024 + (c >>> 24)]! ^
        t[768 + (d & 0xff)]! ^
        t[512 + ((d >>> 8) & 0xff)]! ^
        t[256 + ((d >>> 16) & 0xff)]! ^
        t[d >>> 24]!;
    }
    i += wordCount * 4;
  }
  while (i < end) crc = t[(crc ^ bytes[i++]!) & 0xff]! ^ (crc >>> 8);
  return ~crc >>> 0;
}
