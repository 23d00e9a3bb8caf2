import type * as arrow from "apache-arrow";
import { binaryColumn, int32Column, makeBatch, utf8Column, type Batch } from "../../../batch/batch.js";
import { int64ColumnOfWords, timestampColumnOfWords } from "../../../batch/numeric-columns.js";
import { headersColumn } from "../../../kernels/headers.js";
import type { DType } from "../../../types/dtype.js";
import { kafkaFields } from "../kafka-fields.js";

/** Offsets, bytes and validity of one growing key or value column. Validity bits start at 0 (null). */
export interface BytesBuffers {
  offsets: Int32Array;
  bytes: Uint8Array;
  validity: Uint8Array;
  nulls: number;
}

function newBytes(rows: number, bytes: Uint8Array): BytesBuffers {
  return { offsets: new Int32Array(rows + 1), bytes, validity: new Uint8Array((rows + 7) >> 3), nulls: 0 };
}

/**
 * The growing buffers of the headers column (kernels/headers.ts): per row, its entries' range and
 * whether it has headers at all; per entry, the key's and the value's bytes.
 */
export interface HeaderBuffers {
  offsets: Int32Array;
  validity: Uint8Array;
  nulls: number;
  entries: number;
  keyOffsets: Int32Array;
  keyBytes: Uint8Array;
  valueOffsets: Int32Array;
  valueBytes: Uint8Array;
  valueValidity: Uint8Array;
  valueNulls: number;
}

function newHeaders(rows: number): HeaderBuffers {
  return {
    offsets: new Int32Array(rows + 1),
    validity: new Uint8Array((rows + 7) >> 3),
    nulls: 0,
    entries: 0,
    keyOffsets: new Int32Array(1),
    keyBytes: new Uint8Array(0),
    valueOffsets: new Int32Array(1),
    valueBytes: new Uint8Array(0),
    valueValidity: new Uint8Array(0),
    valueNulls: 0,
  };
}

/** `array` when it holds `needed` elements, else a copy with room for max(needed, twice as many). */
export function grow<T extends Int32Array | Uint8Array | Float64Array>(array: T, needed: number): T {
  if (needed <= array.length) return array;
  const next = new (array.constructor as new (n: number) => T)(Math.max(needed, array.length * 2));
  next.set(array);
  return next;
}

/**
 * Buffers for Spark's Kafka columns (`kafkaFields`), written directly by the decoder with no
 * per-record objects. Row arrays are sized up front from the batches' record counts and grow
 * geometrically if a caller under-reserves; int64 columns (offset, timestamp) are written as
 * little-endian pairs of 32-bit words so no BigInt is made per record. `key` and `value` hold the
 * record bytes verbatim, in the type `kafkaFields` gives them; `headers` is a list of { key, value }
 * entries.
 */
export class KafkaColumnSink {
  rows = 0;
  readonly key: BytesBuffers;
  readonly value: BytesBuffers;
  readonly headers: HeaderBuffers | null;
  offsetWords: Int32Array;
  timestampWords: Int32Array;
  timestampTypes: Int32Array;

  /**
   * `valueBytes` allocates the value buffer (at least the bytes asked for): a pool's, when the
   * caller gives the buffer back once the values are decoded (value-bytes-pool.ts).
   */
  constructor(
    includeHeaders: boolean,
    rowCapacity: number,
    valueByteCapacity: number,
    valueBytes: (bytes: number) => Uint8Array = (bytes) => new Uint8Array(bytes),
  ) {
    const rows = Math.max(1, rowCapacity);
    // Keys are often null or short: start small, `reserve` grows the buffer when they are not.
    this.key = newBytes(rows, new Uint8Array(0));
    this.value = newBytes(rows, valueBytes(valueByteCapacity));
    this.headers = includeHeaders ? newHeaders(rows) : null;
    this.offsetWords = new Int32Array(rows * 2);
    this.timestampWords = new Int32Array(rows * 2);
    this.timestampTypes = new Int32Array(rows);
  }

  /**
   * Room for `rows` more rows from a records section of `bytes` bytes, which bounds their keys
   * and their values alike (and the value buffer stages a copy of the section while values are
   * moved into place), so the hot loop needs no capacity checks.
   */
  reserve(rows: number, bytes: number): void {
    const total = this.rows + rows;
    if (total > this.timestampTypes.length) {
      const capacity = Math.max(total, this.timestampTypes.length * 2);
      for (const column of this.rowColumns()) {
        column.offsets = grow(column.offsets, capacity + 1);
        column.validity = grow(column.validity, (capacity + 7) >> 3);
      }
      this.offsetWords = grow(this.offsetWords, capacity * 2);
      this.timestampWords = grow(this.timestampWords, capacity * 2);
      this.timestampTypes = grow(this.timestampTypes, capacity);
    }
    this.key.bytes = grow(this.key.bytes, this.key.offsets[this.rows]! + bytes);
    this.value.bytes = grow(this.value.bytes, this.value.offsets[this.rows]! + bytes);
  }

  /** Room for `count` more header entries whose keys and values take at most `bytes` bytes each. */
  reserveHeaders(count: number, bytes: number): void {
    const h = this.headers!;
    const entries = h.entries + count;
    h.keyOffsets = grow(h.keyOffsets, entries + 1);
    h.valueOffsets = grow(h.valueOffsets, entries + 1);
    h.valueValidity = grow(h.valueValidity, (entries + 7) >> 3);
    h.keyBytes = grow(h.keyBytes, h.keyOffsets[h.entries]! + bytes);
    h.valueBytes = grow(h.valueBytes, h.valueOffsets[h.entries]! + bytes);
  }

  private rowColumns(): { offsets: Int32Array; validity: Uint8Array }[] {
    return this.headers ? [this.key, this.value, this.headers] : [this.key, this.value];
  }

  /** The decoded rows as a Sluice batch (views over the buffers, no copy of values). */
  toBatch(topic: string, partition: number): Batch {
    const n = this.rows;
    const fields = kafkaFields(this.headers !== null);
    const columns: arrow.Data[] = [
      finishBytes(this.key, n, fields[0]!.type),
      finishBytes(this.value, n, fields[1]!.type),
      repeatedString(topic, n),
      int32Column(new Int32Array(n).fill(partition)),
      int64ColumnOfWords(this.offsetWords, n),
      timestampColumnOfWords(this.timestampWords, n),
      int32Column(this.timestampTypes.subarray(0, n)),
    ];
    if (this.headers) columns.push(finishHeaders(this.headers, n));
    return makeBatch(fields, columns, n);
  }
}

/** A key or value column over the buffers: Utf8 and Binary share one layout. */
function finishBytes(column: BytesBuffers, n: number, type: DType): arrow.Data {
  const offsets = column.offsets.subarray(0, n + 1);
  const bytes = column.bytes.subarray(0, offsets[n]!);
  const make = type === "binary" ? binaryColumn : utf8Column;
  if (column.nulls === 0) return make(offsets, bytes);
  return make(offsets, bytes, column.validity.subarray(0, (n + 7) >> 3), column.nulls);
}

function finishHeaders(h: HeaderBuffers, n: number): arrow.Data {
  const entries = h.entries;
  return headersColumn({
    length: n,
    offsets: h.offsets.subarray(0, n + 1),
    rowNulls: h.nulls === 0 ? null : { bitmap: h.validity.subarray(0, (n + 7) >> 3), count: h.nulls },
    keyOffsets: h.keyOffsets.subarray(0, entries + 1),
    keyBytes: h.keyBytes.subarray(0, h.keyOffsets[entries]!),
    valueOffsets: h.valueOffsets.subarray(0, entries + 1),
    valueBytes: h.valueBytes.subarray(0, h.valueOffsets[entries]!),
    valueNulls: h.valueNulls === 0 ? null : { bitmap: h.valueValidity.subarray(0, (entries + 7) >> 3), count: h.valueNulls },
  });
}
/** The topic column: one name repeated, built by doubling copies. */
function repeatedString(text: string, n: number): arrow.Data {
  const unit = new TextEncoder().encode(text);
  const offsets = new Int32Array(n + 1);
  for (let i = 1; i <= n; i++) offsets[i] = i * unit.length;
  const bytes = new Uint8Array(n * unit.length);
  if (bytes.length > 0) {
    bytes.set(unit);
    for (let filled = unit.length; filled < bytes.length; filled *= 2) {
      bytes.copyWithin(filled, 0, Math.min(filled, bytes.length - filled));
    }
  }
  return utf8Column(offsets, bytes);
}
