import { loadPackage } from "./load-package.js";

/**
 * Snappy as Kafka stores it. Java producers write the "xerial" stream framing: a 16-byte header
 * (magic `\x82SNAPPY\0`, then big-endian int32 version and compatible version, both 1) followed
 * by chunks, each a big-endian int32 length and one raw Snappy block of at most 32 KiB of input.
 * Some non-Java producers write a single raw Snappy block with no framing; a reader takes both,
 * telling them apart by the magic.
 */

interface SnappyBlockCodec {
  uncompress(compressed: Uint8Array, maxLength?: number): Uint8Array;
  compress(uncompressed: Uint8Array): Uint8Array;
}

const XERIAL_MAGIC = [0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00];
const XERIAL_HEADER_SIZE = 16;
const XERIAL_VERSION = 1;
const CHUNK_SIZE = 32 * 1024;

let codec: SnappyBlockCodec | undefined;
function snappy(): SnappyBlockCodec {
  return (codec ??= loadPackage<SnappyBlockCodec>("snappyjs"));
}

function hasXerialHeader(input: Uint8Array): boolean {
  if (input.length < XERIAL_HEADER_SIZE) return false;
  for (let i = 0; i < XERIAL_MAGIC.length; i++) if (input[i] !== XERIAL_MAGIC[i]) return false;
  return true;
}

function readInt32BE(bytes: Uint8Array, pos: number): number {
  return ((bytes[pos]! << 24) | (bytes[pos + 1]! << 16) | (bytes[pos + 2]! << 8) | bytes[pos + 3]!) >>> 0;
}

function writeInt32BE(bytes: Uint8Array, pos: number, value: number): void {
  bytes[pos] = value >>> 24;
  bytes[pos + 1] = value >>> 16;
  bytes[pos + 2] = value >>> 8;
  bytes[pos + 3] = value;
}

/** Decompresses xerial-framed or raw Snappy data. */
export function snappyDecompress(input: Uint8Array): Uint8Array {
  if (!hasXerialHeader(input)) return snappy().uncompress(input);
  const chunks: Uint8Array[] = [];
  let total = 0;
  let pos = XERIAL_HEADER_SIZE;
  while (pos < input.length) {
    if (pos + 4 > input.length) throw new Error(`snappy chunk length at byte ${pos} is cut off`);
    const length = readInt32BE(input, pos);
    pos += 4;
    if (pos + length > input.length) throw new Error(`snappy chunk at byte ${pos} needs ${length} bytes, ${input.length - pos} remain`);
    const chunk = snappy().uncompress(input.subarray(pos, pos + length));
    chunks.push(chunk);
    total += chunk.length;
    pos += length;
  }
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

/** Compresses into the xerial framing, as Kafka's Java producer writes it. */
export function snappyCompress(input: Uint8Array): Uint8Array {
  const blocks: Uint8Array[] = [];
  let total = XERIAL_HEADER_SIZE;
  for (let pos = 0; pos < input.length; pos += CHUNK_SIZE) {
    const block = snappy().compress(input.subarray(pos, Math.min(input.length, pos + CHUNK_SIZE)));
    blocks.push(block);
    total += 4 + block.length;
  }
  const out = new Uint8Array(total);
  out.set(XERIAL_MAGIC, 0);
  writeInt32BE(out, 8, XERIAL_VERSION);
  writeInt32BE(out, 12, XERIAL_VERSION);
  let at = XERIAL_HEADER_SIZE;
  for (const block of blocks) {
    writeInt32BE(out, at, block.length);
    out.set(block, at + 4);
    at += 4 + block.length;
  }
  return out;
}
