import * as zlib from "node:zlib";
import { loadPackage } from "./load-package.js";

/**
 * Zstandard. Node's zlib gained zstd in 22.15 / 23.8; on older Node (Sluice supports 20) frames
 * are decompressed by `fzstd`, a pure-JavaScript decoder. There is no pure-JavaScript encoder of
 * the same standing, so compressing needs Node's own.
 */

interface NativeZstd {
  zstdDecompressSync?: (input: Uint8Array) => Uint8Array;
  zstdCompressSync?: (input: Uint8Array) => Uint8Array;
}
interface Fzstd {
  decompress(input: Uint8Array): Uint8Array;
}

const native = zlib as unknown as NativeZstd;

let fzstd: Fzstd | undefined;

export function zstdDecompress(input: Uint8Array): Uint8Array {
  if (native.zstdDecompressSync) return native.zstdDecompressSync(input);
  return (fzstd ??= loadPackage<Fzstd>("fzstd")).decompress(input);
}

/** True when this Node can compress zstd (22.15 or later). */
export function canCompressZstd(): boolean {
  return typeof native.zstdCompressSync === "function";
}

/** Compresses with Node's zstd; callers check `canCompressZstd()` first. */
export function zstdCompress(input: Uint8Array): Uint8Array {
  if (!native.zstdCompressSync) throw new Error("this Node has no zstd compressor");
  return native.zstdCompressSync(input);
}
