import type * as arrow from "apache-arrow";
import { int64WordsOf } from "../../batch/numeric-columns.js";
import { readValidity } from "../../batch/validity.js";
import { AnalysisError } from "../../errors/errors.js";
import { copyBytes } from "../../kernels/copy-bytes.js";
import type { Field } from "../../types/dtype.js";

/**
 * Avro binary encoding of one Sluice column into every row's datum, a column at a time: `size`
 * adds each row's byte count for the column to `sizes`, then `write` writes each row's value at
 * `cursors[row]` and advances it. Both passes are plain loops over the column's typed arrays;
 * int64 and timestamps are encoded from their 32-bit word pairs, so no BigInt is made and every
 * int64 is written exactly. A nullable column is the union ["null", T]: index 0 (one byte 0x00)
 * for a null, index 1 (0x02) before a value.
 */
export interface ColumnEncoder {
  size(sizes: Int32Array): void;
  write(out: Uint8Array, view: DataView, cursors: Int32Array): void;
}

const UNION_NULL = 0x00;
const UNION_VALUE = 0x02;

export function columnEncoder(field: Field, data: arrow.Data): ColumnEncoder {
  const valid = readValidity(data);
  if (valid !== null && !field.nullable) {
    throw new AnalysisError(`column "${field.name}" is declared not nullable but holds ${data.nullCount} null${data.nullCount === 1 ? "" : "s"}; its Avro type has no null branch: make the column nullable`);
  }
  const values = valueEncoder(field, data);
  if (!field.nullable) return values;
  // Every row carries the union index; values are encoded for valid rows only.
  return {
    size(sizes) {
      for (let i = 0; i < sizes.length; i++) sizes[i]! += 1;
      values.size(sizes, valid);
    },
    write(out, view, cursors) {
      for (let i = 0; i < cursors.length; i++) out[cursors[i]!++] = valid === null || valid[i] === 1 ? UNION_VALUE : UNION_NULL;
      values.write(out, view, cursors, valid);
    },
  } as ColumnEncoder;
}

/** A column's values, for the rows `valid` marks (all when null). */
interface ValueEncoder {
  size(sizes: Int32Array, valid?: Uint8Array | null): void;
  write(out: Uint8Array, view: DataView, cursors: Int32Array, valid?: Uint8Array | null): void;
}

function valueEncoder(field: Field, data: arrow.Data): ValueEncoder {
  switch (field.type) {
    case "int32":
      return intEncoder(data.values as Int32Array);
    case "int64":
    case "timestamp":
      return longEncoder([int64WordsOf(data)]);
    case "window":
      // A record of two longs: start, then end.
      return longEncoder(data.children.map(int64WordsOf));
    case "float64":
      return fixedEncoder(8, (view, at, i) => view.setFloat64(at, (data.values as Float64Array)[i]!, true));
    case "boolean": {
      const bits = data.values as Uint8Array;
      const offset = data.offset;
      return fixedEncoder(1, (view, at, i) => view.setUint8(at, (bits[(offset + i) >> 3]! >> ((offset + i) & 7)) & 1));
    }
    case "string":
    case "binary":
      return bytesEncoder(data.valueOffsets as Int32Array, data.values as Uint8Array);
  }
  throw new AnalysisError(`column "${field.name}" has type ${field.type as string}, which Sluice does not write as Avro`);
}

function intEncoder(values: Int32Array): ValueEncoder {
  return {
    size(sizes, valid) {
      for (let i = 0; i < sizes.length; i++) if (!valid || valid[i] === 1) sizes[i]! += varintLength((values[i]! << 1) ^ (values[i]! >> 31), 0);
    },
    write(out, _view, cursors, valid) {
      for (let i = 0; i < cursors.length; i++) {
        if (valid && valid[i] !== 1) continue;
        const v = values[i]!;
        cursors[i] = writeVarint(out, cursors[i]!, (v << 1) ^ (v >> 31), 0);
      }
    },
  };
}

/** One long per word array, back to back (one for int64 and timestamps, two for a window's bounds). */
function longEncoder(parts: readonly Int32Array[]): ValueEncoder {
  return {
    size(sizes, valid) {
      for (const words of parts) {
        for (let i = 0; i < sizes.length; i++) {
          if (valid && valid[i] !== 1) continue;
          const lo = words[2 * i]!;
          const hi = words[2 * i + 1]!;
          sizes[i]! += varintLength((lo << 1) ^ (hi >> 31), ((hi << 1) | (lo >>> 31)) ^ (hi >> 31));
        }
      }
    },
    write(out, _view, cursors, valid) {
      for (const words of parts) {
        for (let i = 0; i < cursors.length; i++) {
          if (valid && valid[i] !== 1) continue;
          const lo = words[2 * i]!;
          const hi = words[2 * i + 1]!;
          cursors[i] = writeVarint(out, cursors[i]!, (lo << 1) ^ (hi >> 31), ((hi << 1) | (lo >>> 31)) ^ (hi >> 31));
        }
      }
    },
  };
}

function fixedEncoder(width: number, put: (view: DataView, at: number, row: number) => void): ValueEncoder {
  return {
    size(sizes, valid) {
      for (let i = 0; i < sizes.length; i++) if (!valid || valid[i] === 1) sizes[i]! += width;
    },
    write(_out, view, cursors, valid) {
      for (let i = 0; i < cursors.length; i++) {
        if (valid && valid[i] !== 1) continue;
        put(view, cursors[i]!, i);
        cursors[i]! += width;
      }
    },
  };
}

function bytesEncoder(offsets: Int32Array, bytes: Uint8Array): ValueEncoder {
  const source = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return {
    size(sizes, valid) {
      for (let i = 0; i < sizes.length; i++) {
        if (valid && valid[i] !== 1) continue;
        const length = offsets[i + 1]! - offsets[i]!;
        sizes[i]! += varintLength(length << 1, 0) + length;
      }
    },
    write(out, view, cursors, valid) {
      for (let i = 0; i < cursors.length; i++) {
        if (valid && valid[i] !== 1) continue;
        const from = offsets[i]!;
        const length = offsets[i + 1]! - from;
        const at = writeVarint(out, cursors[i]!, length << 1, 0);
        copyBytes(bytes, source, from, out, view, at, length);
        cursors[i] = at + length;
      }
    },
  };
}

/** Bytes of the varint of the unsigned 64-bit value (lo, hi) (already zig-zagged). */
export function varintLength(lo: number, hi: number): number {
  if (hi === 0) {
    const v = lo >>> 0;
    return v < 0x80 ? 1 : v < 0x4000 ? 2 : v < 0x200000 ? 3 : v < 0x10000000 ? 4 : 5;
  }
  const bits = 64 - Math.clz32(hi);
  return Math.ceil(bits / 7);
}

/** Writes the varint of the unsigned 64-bit value (lo, hi) at `at`; returns the position after it. */
export function writeVarint(out: Uint8Array, at: number, lo: number, hi: number): number {
  let low = lo >>> 0;
  let high = hi >>> 0;
  while (high !== 0 || low >= 0x80) {
    out[at++] = (low & 0x7f) | 0x80;
    low = ((low >>> 7) | (high << 25)) >>> 0;
    high >>>= 7;
  }
  out[at++] = low;
  return at;
}

