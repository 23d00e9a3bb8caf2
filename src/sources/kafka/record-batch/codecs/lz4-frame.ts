import { loadPackage } from "./load-package.js";

/**
 * LZ4 as Kafka stores it: the standard LZ4 frame format (magic 0x184D2204, a frame descriptor with
 * its xxHash-32 header checksum, then size-prefixed blocks ending in a zero word). The block codec
 * comes from `lz4js`; the frame layer is here, so that written frames have independent 64 KiB
 * blocks (what Kafka's Java reader decompresses block by block) and read frames may use any
 * block size, checksum flag, content size or several concatenated frames.
 */

interface Lz4BlockCodec {
  decompressBlock(src: Uint8Array, dst: Uint8Array, srcIndex: number, srcLength: number, dstIndex: number): number;
  compressBlock(src: Uint8Array, dst: Uint8Array, srcIndex: number, srcLength: number, hashTable: Uint32Array): number;
  compressBound(n: number): number;
}
interface XxHash32 {
  hash(seed: number, bytes: Uint8Array, start: number, length: number): number;
}

const FRAME_MAGIC = 0x184d2204;
const VERSION_01 = 0x40;
const FLAG_BLOCK_INDEPENDENT = 0x20;
const FLAG_BLOCK_CHECKSUM = 0x10;
const FLAG_CONTENT_SIZE = 0x08;
const FLAG_CONTENT_CHECKSUM = 0x04;
const FLAG_DICTIONARY_ID = 0x01;
const BLOCK_UNCOMPRESSED = 0x80000000;
const MAX_BLOCK_SIZES: Record<number, number> = { 4: 0x10000, 5: 0x40000, 6: 0x100000, 7: 0x400000 };
const WRITE_BLOCK_SIZE_CODE = 4;
const WRITE_BLOCK_SIZE = 0x10000;

let blockCodec: Lz4BlockCodec | undefined;
let xxh32: XxHash32 | undefined;
function lz4(): Lz4BlockCodec {
  return (blockCodec ??= loadPackage<Lz4BlockCodec>("lz4js"));
}

function readUint32LE(bytes: Uint8Array, pos: number): number {
  return (bytes[pos]! | (bytes[pos + 1]! << 8) | (bytes[pos + 2]! << 16) | (bytes[pos + 3]! << 24)) >>> 0;
}

function writeUint32LE(bytes: Uint8Array, pos: number, value: number): void {
  bytes[pos] = value;
  bytes[pos + 1] = value >>> 8;
  bytes[pos + 2] = value >>> 16;
  bytes[pos + 3] = value >>> 24;
}

interface FrameLayout {
  readonly firstBlock: number;
  readonly blockChecksums: boolean;
  readonly contentChecksum: boolean;
  /** An upper bound on the frame's decompressed size. */
  readonly outputBound: number;
  /** Index just past the frame. */
  readonly end: number;
}

function readFrameLayout(input: Uint8Array, start: number): FrameLayout {
  if (start + 7 > input.length || readUint32LE(input, start) !== FRAME_MAGIC) {
    throw new Error(`no LZ4 frame magic at byte ${start}`);
  }
  const flags = input[start + 4]!;
  if ((flags & 0xc0) !== VERSION_01) throw new Error(`LZ4 frame version ${flags >> 6} is not 1`);
  const maxBlockSize = MAX_BLOCK_SIZES[(input[start + 5]! >> 4) & 7];
  if (maxBlockSize === undefined) throw new Error(`LZ4 frame has an invalid block size code ${(input[start + 5]! >> 4) & 7}`);
  const blockChecksums = (flags & FLAG_BLOCK_CHECKSUM) !== 0;
  const contentChecksum = (flags & FLAG_CONTENT_CHECKSUM) !== 0;
  let pos = start + 6 + (flags & FLAG_CONTENT_SIZE ? 8 : 0) + (flags & FLAG_DICTIONARY_ID ? 4 : 0) + 1;
  const firstBlock = pos;
  let outputBound = 0;
  for (;;) {
    if (pos + 4 > input.length) throw new Error("LZ4 frame is cut off before its end mark");
    const word = readUint32LE(input, pos);
    pos += 4;
    if (word === 0) break;
    const size = word & ~BLOCK_UNCOMPRESSED;
    outputBound += word & BLOCK_UNCOMPRESSED ? size : maxBlockSize;
    pos += size + (blockChecksums ? 4 : 0);
  }
  pos += contentChecksum ? 4 : 0;
  if (pos > input.length) throw new Error("LZ4 frame is cut off");
  return { firstBlock, blockChecksums, contentChecksum, outputBound, end: pos };
}

/** Decompresses one or more concatenated LZ4 frames. */
export function lz4Decompress(input: Uint8Array): Uint8Array {
  const frames: FrameLayout[] = [];
  let bound = 0;
  for (let pos = 0; pos < input.length; ) {
    const frame = readFrameLayout(input, pos);
    frames.push(frame);
    bound += frame.outputBound;
    pos = frame.end;
  }
  const out = new Uint8Array(bound);
  let written = 0;
  for (const frame of frames) {
    let pos = frame.firstBlock;
    for (;;) {
      const word = readUint32LE(input, pos);
      pos += 4;
      if (word === 0) break;
      const size = word & ~BLOCK_UNCOMPRESSED;
      if (word & BLOCK_UNCOMPRESSED) {
        out.set(input.subarray(pos, pos + size), written);
        written += size;
      } else {
        written = lz4().decompressBlock(input, out, pos, size, written);
      }
      if (written > bound) throw new Error("LZ4 block decompressed past its declared size");
      pos += size + (frame.blockChecksums ? 4 : 0);
    }
  }
  return out.subarray(0, written);
}

/** Compresses into one LZ4 frame of independent 64 KiB blocks, without checksums beyond the header's. */
export function lz4Compress(input: Uint8Array): Uint8Array {
  const codec = lz4();
  const blockCount = Math.ceil(input.length / WRITE_BLOCK_SIZE);
  const out = new Uint8Array(7 + blockCount * (4 + WRITE_BLOCK_SIZE) + 4);
  writeUint32LE(out, 0, FRAME_MAGIC);
  out[4] = VERSION_01 | FLAG_BLOCK_INDEPENDENT;
  out[5] = WRITE_BLOCK_SIZE_CODE << 4;
  // Header checksum: the second byte of xxHash-32 (seed 0) over the descriptor (flags and block size).
  out[6] = (headerHash().hash(0, out, 4, 2) >>> 8) & 0xff;
  let pos = 7;
  const scratch = new Uint8Array(codec.compressBound(WRITE_BLOCK_SIZE));
  const hashTable = new Uint32Array(1 << 16);
  for (let start = 0; start < input.length; start += WRITE_BLOCK_SIZE) {
    const size = Math.min(WRITE_BLOCK_SIZE, input.length - start);
    // A fresh match table per block keeps blocks independent: no match reaches into an earlier block.
    hashTable.fill(0);
    const compressed = codec.compressBlock(input, scratch, start, size, hashTable);
    if (compressed > 0 && compressed < size) {
      writeUint32LE(out, pos, compressed);
      out.set(scratch.subarray(0, compressed), pos + 4);
      pos += 4 + compressed;
    } else {
      writeUint32LE(out, pos, (BLOCK_UNCOMPRESSED | size) >>> 0);
      out.set(input.subarray(start, start + size), pos + 4);
      pos += 4 + size;
    }
  }
  writeUint32LE(out, pos, 0);
  return out.slice(0, pos + 4);
}

function headerHash(): XxHash32 {
  return (xxh32 ??= loadPackage<XxHash32>("lz4js/xxh32.js"));
}
