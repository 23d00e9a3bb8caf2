import type * as arrow from "apache-arrow";
import { int32Column, makeBatch, utf8Column, type Batch } from "../../../batch/batch.js";
import { int64ColumnOfWords, timestampColumnOfWords } from "../../../batch/numeric-columns.js";
import { kafkaFields } from "../kafka-fields.js";

/** Offsets, bytes and validity of one growing Utf8 column. Validity bits start at 0 (null). */
export interface Utf8Buffers {
  offsets: Int32Array;
  bytes: Uint8Array;
  validity: Uint8Array;
  nulls: number;
}

function newUtf8(rows: number, bytes: number): Utf8Buffers {
  return { offsets: new Int32Array(rows + 1), bytes: new Uint8Array(bytes), validity: new Uint8Array((rows + 7) >> 3), nulls: 0 };
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
 * record bytes verbatim in Utf8 columns (Sluice has no binary type yet); `headers` is JSON text.
 */
export class KafkaColumnSink {
  rows = 0;
  readonly key: Utf8Buffers;
  readonly value: Utf8Buffers;
  readonly headers: Utf8Buffers | null;
  offsetWords: Int32Array;
  timestampWords: Int32Array;
  timestampTypes: Int32Array;

  constructor(includeHeaders: boolean, rowCapacity: number, valueByteCapacity: number) {
    const rows = Math.max(1, rowCapacity);
    // Keys are often null or short: start small, `reserve` grows the buffer when they are not.
    this.key = newUtf8(rows, 0);
    this.value = newUtf8(rows, valueByteCapacity);
    this.headers = includeHeaders ? newUtf8(rows, 0) : null;
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
      for (const column of this.utf8Columns()) {
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

  /** Room for `bytes` bytes of header JSON for `row` (the decoder counts rows locally within a batch). */
  reserveHeaderBytes(row: number, bytes: number): void {
    const headers = this.headers!;
    headers.bytes = grow(headers.bytes, headers.offsets[row]! + bytes);
  }

  private utf8Columns(): Utf8Buffers[] {
    return this.headers ? [this.key, this.value, this.headers] : [this.key, this.value];
  }

  /** The decoded rows as a Sluice batch (views over the buffers, no copy of values). */
  toBatch(topic: string, partition: number): Batch {
    const n = this.rows;
    const columns: arrow.Data[] = [
      finishUtf8(this.key, n),
      finishUtf8(this.value, n),
      repeatedString(topic, n),
      int32Column(new Int32Array(n).fill(partition)),
      int64ColumnOfWords(this.offsetWords, n),
      timestampColumnOfWords(this.timestampWords, n),
      int32Column(this.timestampTypes.subarray(0, n)),
    ];
    if (this.headers) columns.push(finishUtf8(this.headers, n));
    return makeBatch(kafkaFields(this.headers !== null), columns, n);
  }
}

function finishUtf8(column: Utf8Buffers, n: number): arrow.Data {
  const offsets = column.offsets.subarray(0, n + 1);
  const bytes = column.bytes.subarray(0, offsets[n]!);
  if (column.nulls === 0) return utf8Column(offsets, bytes);
  return utf8Column(offsets, bytes, column.validity.subarray(0, (n + 7) >> 3), column.nulls);
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
