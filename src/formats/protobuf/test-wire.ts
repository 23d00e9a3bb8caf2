import type { Batch } from "../../batch/batch.js";
import { batchToRows } from "../../batch/rows.js";

/**
 * Protobuf bytes written by hand for tests, independently of the encoder under test: each helper
 * gives one field's bytes (tag and value), and `message` joins them. Values are bigints where 64
 * bits matter.
 */

function varintBytes(value: bigint): number[] {
  let v = BigInt.asUintN(64, value);
  const out: number[] = [];
  while (v >= 0x80n) {
    out.push(Number(v & 0x7fn) | 0x80);
    v >>= 7n;
  }
  out.push(Number(v));
  return out;
}

const tag = (number: number, wire: number) => varintBytes(BigInt((number << 3) | wire));

export const varint = (number: number, value: number | bigint): number[] => [...tag(number, 0), ...varintBytes(BigInt(value))];
export const zigzag = (value: number | bigint): bigint => {
  const v = BigInt(value);
  return v >= 0n ? v * 2n : -v * 2n - 1n;
};

export function len(number: number, value: string | readonly number[]): number[] {
  const bytes = typeof value === "string" ? [...new TextEncoder().encode(value)] : [...value];
  return [...tag(number, 2), ...varintBytes(BigInt(bytes.length)), ...bytes];
}

export function fixed32(number: number, value: number): number[] {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setUint32(0, value >>> 0, true);
  return [...tag(number, 5), ...b];
}

export function fixed64(number: number, value: bigint): number[] {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, BigInt.asUintN(64, value), true);
  return [...tag(number, 1), ...b];
}

export function float32(number: number, value: number): number[] {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setFloat32(0, value, true);
  return [...tag(number, 5), ...b];
}

export function float64(number: number, value: number): number[] {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setFloat64(0, value, true);
  return [...tag(number, 1), ...b];
}

export const group = (number: number, ...fields: number[][]): number[] => [...tag(number, 3), ...fields.flat(), ...tag(number, 4)];
export const rawTag = tag;
export const message = (...fields: number[][]): number[] => fields.flat();

/** The Confluent wire-format header: magic byte, big-endian id, then the zigzag message-index list ([0] as the byte 0). */
export function confluent(schemaId: number, indexes: readonly number[], body: number[]): number[] {
  const list = indexes.length === 1 && indexes[0] === 0 ? [0] : [...varintBytes(zigzag(indexes.length)), ...indexes.flatMap((i) => varintBytes(zigzag(i)))];
  return [0, (schemaId >>> 24) & 0xff, (schemaId >>> 16) & 0xff, (schemaId >>> 8) & 0xff, schemaId & 0xff, ...list, ...body];
}

/** Records as a binary column: back to back, with offsets; null entries are null records (their slot holds `nullBytes`). */
export function valuesColumn(records: readonly (readonly number[] | Uint8Array | null)[], nullBytes: readonly number[] = []) {
  const parts = records.map((r) => Uint8Array.from(r ?? nullBytes));
  const offsets = new Int32Array(records.length + 1);
  parts.forEach((p, i) => (offsets[i + 1] = offsets[i]! + p.length));
  const bytes = new Uint8Array(offsets[records.length]!);
  parts.forEach((p, i) => bytes.set(p, offsets[i]!));
  const validity = records.includes(null) ? Uint8Array.from(records, (r) => (r === null ? 0 : 1)) : null;
  return { bytes, offsets, validity };
}

/** Rows for exact comparisons: int64 as bigint beyond 2^53, timestamps as ISO text, binary as byte lists. */
export function plainRows(batch: Batch): Record<string, unknown>[] {
  return batchToRows(batch, { bigintBeyondExact: true }).map((row) =>
    Object.fromEntries(Object.entries(row).map(([k, v]) => [k, v instanceof Date ? v.toISOString() : v instanceof Uint8Array ? [...v] : v])),
  );
}
