import { createRequire } from "node:module";
import type * as ParquetWasm from "parquet-wasm";

let loaded: typeof ParquetWasm | null = null;

/**
 * parquet-wasm: the Rust Arrow project's Parquet reader and writer compiled to WebAssembly and
 * shipped inside the npm package. Loaded on first use, synchronously (its Node build compiles a
 * 5 MB module, about 70 ms), so only queries that read or write Parquet pay for it, and a worker
 * can decode a file without awaiting anything.
 */
export function parquetWasm(): typeof ParquetWasm {
  loaded ??= createRequire(import.meta.url)("parquet-wasm") as typeof ParquetWasm;
  return loaded;
}
