import { isValid, makeBatch, type Batch } from "../../batch/batch.js";
import type { Fields } from "../../types/dtype.js";
import { batchRows, type PlainValue } from "../test-rows.js";
import type { AvroValuesOptions } from "./avro-values.js";
import { decodeAvroValues } from "./avro-values.js";

/**
 * Avro bytes written by hand for tests, so that expected inputs are stated byte by byte and do not
 * depend on the encoder under test.
 */

const utf8 = new TextEncoder();

/** The varint of a zig-zag long, from a bigint: exact over the whole 64-bit range. */
export function long(value: number | bigint): Uint8Array {
  const v = BigInt.asIntN(64, BigInt(value));
  let raw = BigInt.asUintN(64, (v << 1n) ^ (v >> 63n));
  const out: number[] = [];
  while (raw >= 0x80n) {
    out.push(Number(raw & 0x7fn) | 0x80);
    raw >>= 7n;
  }
  out.push(Number(raw));
  return Uint8Array.from(out);
}

/** Ints are written as longs are. */
export const int = long;

export function str(text: string): Uint8Array {
  const bytes = utf8.encode(text);
  return concat(long(bytes.length), bytes);
}

export function bytes(...values: number[]): Uint8Array {
  return concat(long(values.length), Uint8Array.from(values));
}

export function float(x: number): Uint8Array {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setFloat32(0, x, true);
  return out;
}

export function double(x: number): Uint8Array {
  const out = new Uint8Array(8);
  new DataView(out.buffer).setFloat64(0, x, true);
  return out;
}

export function bool(b: boolean): Uint8Array {
  return Uint8Array.of(b ? 1 : 0);
}

export function concat(...parts: (Uint8Array | readonly number[])[]): Uint8Array {
  const arrays = parts.map((p) => (p instanceof Uint8Array ? p : Uint8Array.from(p)));
  const out = new Uint8Array(arrays.reduce((n, a) => n + a.length, 0));
  let at = 0;
  for (const a of arrays) {
    out.set(a, at);
    at += a.length;
  }
  return out;
}

/** A Confluent wire-format value: magic byte 0, the id big-endian, the payload. */
export function confluent(id: number, payload: Uint8Array): Uint8Array {
  const header = new Uint8Array(5);
  new DataView(header.buffer).setUint32(1, id);
  return concat(header, payload);
}

/** Records back to back in one buffer, framed by offsets as a binary column; null entries are null records. */
export function valueColumn(records: readonly (Uint8Array | null)[]): { bytes: Uint8Array; offsets: Int32Array; validity: Uint8Array | null } {
  const offsets = new Int32Array(records.length + 1);
  records.forEach((r, i) => (offsets[i + 1] = offsets[i]! + (r?.length ?? 0)));
  const bytes = concat(...records.map((r) => r ?? new Uint8Array(0)));
  const validity = records.includes(null) ? Uint8Array.from(records, (r) => (r === null ? 0 : 1)) : null;
  return { bytes, offsets, validity };
}

/** Decodes records and states the result as plain rows (binary columns as arrays of byte values). */
export function decodeRows(records: readonly (Uint8Array | null)[], fields: Fields, options: AvroValuesOptions) {
  const { bytes, offsets, validity } = valueColumn(records);
  const result = decodeAvroValues(bytes, offsets, validity, fields, options);
  return {
    rows: rowsOf(result.batch),
    numMalformed: result.numMalformed,
    malformedRows: Array.from(result.malformedRows),
    keptRows: Array.from(result.keptRows),
  };
}

/** The message an action throws, or "no error". */
export function failure(run: () => unknown): string {
  try {
    run();
  } catch (e) {
    return `${(e as Error).name}: ${(e as Error).message}`;
  }
  return "no error";
}

/** `batchRows`, with binary columns as arrays of byte values. */
export function rowsOf(batch: Batch): Record<string, PlainValue | number[]>[] {
  const plain = batch.fields.flatMap((f, c) => (f.type === "binary" ? [] : [c]));
  const rows: Record<string, PlainValue | number[]>[] = batchRows(makeBatch(plain.map((c) => batch.fields[c]!), plain.map((c) => batch.columns[c]!), batch.numRows));
  batch.fields.forEach((f, c) => {
    if (f.type !== "binary") return;
    const data = batch.columns[c]!;
    const offsets = data.valueOffsets as Int32Array;
    rows.forEach((row, i) => (row[f.name] = isValid(data, i) ? Array.from((data.values as Uint8Array).subarray(offsets[i]!, offsets[i + 1]!)) : null));
  });
  // Keys in the order of the fields.
  return rows.map((row) => Object.fromEntries(batch.fields.map((f) => [f.name, row[f.name]!])));
}

/** The message this JavaScript engine's JSON.parse gives for `text` (its wording differs between Node versions). */
export function jsonError(text: string): string {
  try {
    JSON.parse(text);
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error(`${text} is JSON`);
}
