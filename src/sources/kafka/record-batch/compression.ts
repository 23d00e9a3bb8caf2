import * as zlib from "node:zlib";
import { SluiceError } from "../../../errors/errors.js";
import { lz4Compress, lz4Decompress } from "./codecs/lz4-frame.js";
import { snappyCompress, snappyDecompress } from "./codecs/snappy-xerial.js";
import { canCompressZstd, zstdCompress, zstdDecompress } from "./codecs/zstd.js";

/**
 * Kafka's record-batch compression codecs, by the code in bits 0-2 of a batch's attributes.
 * Everything here is synchronous: decoding runs inside worker threads, one batch at a time.
 */
export const KAFKA_COMPRESSIONS = ["none", "gzip", "snappy", "lz4", "zstd"] as const;
export type KafkaCompression = (typeof KAFKA_COMPRESSIONS)[number];

export const COMPRESSION_CODE_MASK = 0x07;

export function compressionCode(name: KafkaCompression): number {
  return KAFKA_COMPRESSIONS.indexOf(name);
}

/** The codec's name for a compression code, or `code N` for codes Kafka has not defined. */
export function compressionName(code: number): string {
  return KAFKA_COMPRESSIONS[code] ?? `code ${code}`;
}

/**
 * Decompresses a batch's records section. Throws SluiceError for a code Kafka has not defined;
 * a codec's own error (corrupt input) propagates for the caller to put in context.
 */
export function decompressRecords(code: number, input: Uint8Array): Uint8Array {
  switch (code) {
    case 0:
      return input;
    case 1:
      return plain(zlib.gunzipSync(input));
    case 2:
      return snappyDecompress(input);
    case 3:
      return lz4Decompress(input);
    case 4:
      return plain(zstdDecompress(input));
    default:
      throw new SluiceError(`record batch uses compression ${compressionName(code)}, which Kafka does not define (0 none, 1 gzip, 2 snappy, 3 lz4, 4 zstd)`);
  }
}

/** Node's codecs return Buffers; callers get plain Uint8Arrays, as from every other codec. */
function plain(bytes: Uint8Array): Uint8Array {
  return bytes.constructor === Uint8Array ? bytes : new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** Compresses a records section for a batch written with `name`. */
export function compressRecords(name: KafkaCompression, input: Uint8Array): Uint8Array {
  switch (name) {
    case "none":
      return input;
    case "gzip":
      return plain(zlib.gzipSync(input));
    case "snappy":
      return snappyCompress(input);
    case "lz4":
      return lz4Compress(input);
    case "zstd":
      if (!canCompressZstd()) {
        throw new SluiceError(
          `cannot write zstd-compressed Kafka batches on Node ${process.versions.node}: compressing zstd needs Node 22.15 or later (reading zstd works on any supported Node); choose "gzip", "snappy", "lz4" or "none"`,
        );
      }
      return plain(zstdCompress(input));
  }
}
