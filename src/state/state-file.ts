import * as arrow from "apache-arrow";
import { readNumbers, readValidity, validityFromBytes } from "../batch/batch.js";
import { CheckpointError } from "../errors/errors.js";
import { copyBytes, viewOf } from "../kernels/copy-bytes.js";
import type { StateShape } from "./state-shape.js";
import type { StateColumnSpec, StateSchema, StateTable } from "./state-table.js";

/**
 * One state file: an Arrow IPC file holding one record batch,
 *
 *   "#key"            Binary, not null   the row's encoded key (its words as little-endian bytes)
 *   <value columns>   Float64 (f64) or Binary (bytes), nullable, under their state schema names
 *
 * A snapshot holds every row of its version. A delta holds the changes of its version: first
 * the keys removed in it (values null), then the rows inserted or changed (key and values).
 * Replaying a delta on the version it builds on gives its version exactly. The schema metadata
 * says what the file is, so a file is checked on its own before it is applied:
 *
 *   sluice.state.format     format version (a newer one is refused)
 *   sluice.state.file       "delta" or "snapshot" (must match the file name)
 *   sluice.state.version    the version the file holds (must match the file name)
 *   sluice.state.base       a delta's base version, "none" for the empty initial state
 *   sluice.state.operator   the operator kind that wrote it (see `state-shape.ts`)
 *   sluice.state.rows       rows in the file, sluice.state.removals of them removals
 *
 * together with the value columns, which are the value schema.
 */

export const STATE_FORMAT_VERSION = 1;
const KEY_COLUMN = "#key";
const META = {
  format: "sluice.state.format",
  file: "sluice.state.file",
  version: "sluice.state.version",
  base: "sluice.state.base",
  operator: "sluice.state.operator",
  rows: "sluice.state.rows",
  removals: "sluice.state.removals",
} as const;
const NO_BASE = "none";
/** Every Arrow IPC file ends with these bytes; a file cut short does not. */
const ARROW_MAGIC = [0x41, 0x52, 0x52, 0x4f, 0x57, 0x31];

export type StateFileKind = "delta" | "snapshot";

export interface StateFileHeader extends StateShape {
  readonly kind: StateFileKind;
  readonly version: number;
  /** The version a delta builds on; null for the empty initial state and for snapshots. */
  readonly base: number | null;
}

/** A read and checked state file, not applied yet. */
export interface StateFile {
  readonly header: StateFileHeader;
  readonly removals: number;
  readonly table: arrow.Table;
}

/**
 * The file of `header`: rows `removed` of `table` as removals, then rows `upserted`. Returned as
 * the Arrow writer's pieces, to be written with one vectored write: joining them would copy the
 * whole file once more. Pieces may be views of the table's own buffers, so write them before the
 * table changes.
 */
export function encodeStateFile(
  header: StateFileHeader,
  table: StateTable,
  removed: Int32Array,
  upserted: Int32Array,
  buffers: StateFileBuffers,
): Uint8Array[] {
  const n = removed.length + upserted.length;
  const fields = [new arrow.Field(KEY_COLUMN, new arrow.Binary(), false), ...header.schema.map(valueField)];
  const run = runStart(table, removed, upserted);
  const own = buffers === "copied";
  const children = [
    run >= 0 ? keyRun(table, run, n, own) : keyColumn(table, removed, upserted),
    ...header.schema.map((_, c) => (run >= 0 ? valueRun(table, c, run, n, own) : valueColumn(table, c, removed.length, upserted))),
  ];
  const metadata = new Map<string, string>([
    [META.format, String(STATE_FORMAT_VERSION)],
    [META.file, header.kind],
    [META.version, String(header.version)],
    [META.base, header.base === null ? NO_BASE : String(header.base)],
    [META.operator, header.operatorKind],
    [META.rows, String(n)],
    [META.removals, String(removed.length)],
  ]);
  const struct = arrow.makeData({ type: new arrow.Struct(fields), length: n, nullCount: 0, children });
  const sink = new ChunkSink();
  const writer = new arrow.RecordBatchFileWriter();
  writer.reset(sink);
  writer.write(new arrow.RecordBatch(new arrow.Schema(fields, metadata), struct));
  writer.finish();
  return sink.chunks;
}

/**
 * Whether the encoded pieces may be views of the table's own buffers ("shared": the table stays
 * as it is until the bytes are written, as a snapshot's pinned table does), or must not be
 * ("copied": the table changes while the bytes wait for an asynchronous write).
 */
export type StateFileBuffers = "shared" | "copied";

/** Keeps the pieces an Arrow writer writes, in order (views of the column buffers: no copy). */
class ChunkSink extends arrow.AsyncByteQueue {
  readonly chunks: Uint8Array[] = [];

  override write(value: Parameters<arrow.AsyncByteQueue["write"]>[0]): void {
    // The writer hands over Uint8Array views of its buffers.
    this.chunks.push(value as Uint8Array);
  }
}

/**
 * The first slot when `slots` are consecutive and their keys lie back to back in the key arena
 * (every row of a compacted table, as a snapshot or a delta that touched every row holds), so
 * the columns can be written as they are; -1 otherwise.
 */
function runStart(table: StateTable, removed: Int32Array, slots: Int32Array): number {
  if (removed.length > 0 || slots.length === 0) return -1;
  const first = slots[0]!;
  const keys = table.keyTable;
  const starts = keys.keyStarts;
  for (let j = 1; j < slots.length; j++) {
    const s = slots[j]!;
    if (s !== first + j || starts[s] !== starts[s - 1]! + keys.keyLength(s - 1)) return -1;
  }
  return first;
}

function valueField(spec: StateColumnSpec): arrow.Field {
  return new arrow.Field(spec.name, spec.kind === "f64" ? new arrow.Float64() : new arrow.Binary(), true);
}

function keyColumn(table: StateTable, removed: Int32Array, upserted: Int32Array): arrow.Data {
  const keys = table.keyTable;
  const arena = keys.keyArena;
  const starts = keys.keyStarts;
  const n = removed.length + upserted.length;
  const offsets = new Int32Array(n + 1);
  let words = 0;
  for (let j = 0; j < removed.length; j++) offsets[j + 1] = (words += keys.keyLength(removed[j]!)) * 4;
  for (let j = 0, r = removed.length; j < upserted.length; j++) offsets[r + j + 1] = (words += keys.keyLength(upserted[j]!)) * 4;
  const out = new Int32Array(words);
  let at = 0;
  // Keys are a few words each: a plain loop beats a subarray (an object) per row.
  for (const slots of [removed, upserted]) {
    for (let j = 0; j < slots.length; j++) {
      const s = slots[j]!;
      for (let k = starts[s]!, end = k + keys.keyLength(s); k < end; k++) out[at++] = arena[k]!;
    }
  }
  return binary(offsets, new Uint8Array(out.buffer), null);
}

/** The keys of slots `first ..< first + n`, straight from the key arena. */
function keyRun(table: StateTable, first: number, n: number, own: boolean): arrow.Data {
  const keys = table.keyTable;
  const starts = keys.keyStarts;
  const base = starts[first]!;
  const offsets = new Int32Array(n + 1);
  for (let j = 0; j < n; j++) offsets[j] = (starts[first + j]! - base) * 4;
  offsets[n] = (starts[first + n - 1]! + keys.keyLength(first + n - 1) - base) * 4;
  const arena = keys.keyArena;
  const bytes = new Uint8Array(arena.buffer, arena.byteOffset + base * 4, offsets[n]!);
  return binary(offsets, own ? bytes.slice() : bytes, null);
}

/** Column `c` of slots `first ..< first + n`: f64 values as they are; strings gathered. */
function valueRun(table: StateTable, c: number, first: number, n: number, own: boolean): arrow.Data {
  const column = table.column(c);
  if (column.kind === "bytes") {
    const slots = new Int32Array(n);
    for (let j = 0; j < n; j++) slots[j] = first + j;
    return valueColumn(table, c, 0, slots);
  }
  const valid = column.valid.subarray(first, first + n);
  const { bitmap, nullCount } = valid.indexOf(0) < 0 ? { bitmap: undefined, nullCount: 0 } : validityFromBytes(valid, n);
  const values = own ? column.values.slice(first, first + n) : column.values.subarray(first, first + n);
  return arrow.makeData({ type: new arrow.Float64(), length: n, data: values, nullBitmap: bitmap, nullCount });
}

/** Column `c` of the file: nulls for the removals, then the upserted rows' values. */
function valueColumn(table: StateTable, c: number, removals: number, upserted: Int32Array): arrow.Data {
  const n = removals + upserted.length;
  const column = table.column(c);
  const valid = new Uint8Array(n);
  let nulls = removals;
  for (let j = 0; j < upserted.length; j++) nulls += (valid[removals + j] = column.valid[upserted[j]!]!) ^ 1;
  if (column.kind === "f64") {
    const values = new Float64Array(n);
    const from = column.values;
    for (let j = 0; j < upserted.length; j++) values[removals + j] = from[upserted[j]!]!;
    // Most value columns (counts, sums) have no nulls: no bitmap to build then.
    const { bitmap, nullCount } = nulls === 0 ? { bitmap: undefined, nullCount: 0 } : validityFromBytes(valid, n);
    return arrow.makeData({ type: new arrow.Float64(), length: n, data: values, nullBitmap: bitmap, nullCount });
  }
  const offsets = new Int32Array(n + 1);
  for (let j = 0; j < upserted.length; j++) {
    const s = upserted[j]!;
    offsets[removals + j + 1] = offsets[removals + j]! + (column.valid[s] ? column.ends[s]! - column.starts[s]! : 0);
  }
  const bytes = new Uint8Array(offsets[n]!);
  const arenaView = viewOf(column.arena);
  const outView = viewOf(bytes);
  for (let j = 0; j < upserted.length; j++) {
    const s = upserted[j]!;
    if (column.valid[s]) copyBytes(column.arena, arenaView, column.starts[s]!, bytes, outView, offsets[removals + j]!, column.ends[s]! - column.starts[s]!);
  }
  return binary(offsets, bytes, valid);
}

function binary(offsets: Int32Array, bytes: Uint8Array, valid: Uint8Array | null): arrow.Data {
  const length = offsets.length - 1;
  const { bitmap, nullCount } = valid ? validityFromBytes(valid, length) : { bitmap: undefined, nullCount: 0 };
  return arrow.makeData({ type: new arrow.Binary(), length, valueOffsets: offsets, data: bytes, nullBitmap: bitmap, nullCount });
}

/**
 * Reads and checks the state file `file`, which by its name holds `expected`. Every way a file
 * can be wrong (cut short, not Arrow, not a state file, a newer format, another version than
 * its name says) is a CheckpointError that names it.
 */
export function decodeStateFile(bytes: Uint8Array, file: string, expected: { kind: StateFileKind; version: number }): StateFile {
  const corrupt = (why: string, cause?: unknown) => new CheckpointError(`state file ${file} is corrupt: ${why}`, { cause });
  if (bytes.length < ARROW_MAGIC.length || ARROW_MAGIC.some((b, i) => bytes[bytes.length - ARROW_MAGIC.length + i] !== b)) {
    throw corrupt(`it is truncated or not an Arrow IPC file (${bytes.length} bytes, no Arrow file footer at the end)`);
  }
  let table: arrow.Table;
  try {
    table = arrow.tableFromIPC(bytes);
  } catch (e) {
    throw corrupt(`it is not a readable Arrow IPC file (${(e as Error).message})`, e);
  }
  const meta = table.schema.metadata;
  if (!meta.has(META.format)) throw corrupt(`it is not a Sluice state file: its schema metadata has no "${META.format}"`);
  const format = integerMeta(meta, META.format, corrupt);
  if (format > STATE_FORMAT_VERSION) {
    throw new CheckpointError(
      `state file ${file} was written by a newer Sluice (state format ${format}; this one reads up to ${STATE_FORMAT_VERSION}): upgrade Sluice to read this checkpoint`,
    );
  }
  const kind = meta.get(META.file);
  const version = integerMeta(meta, META.version, corrupt);
  if (kind !== expected.kind || version !== expected.version) {
    throw corrupt(`its metadata says it is a ${kind ?? "?"} of version ${version}, but its name says a ${expected.kind} of version ${expected.version}`);
  }
  const baseText = meta.get(META.base);
  const base = kind === "snapshot" || baseText === NO_BASE ? null : integerMeta(meta, META.base, corrupt);
  const operatorKind = meta.get(META.operator);
  if (!operatorKind) throw corrupt(`its schema metadata has no "${META.operator}"`);
  const rows = integerMeta(meta, META.rows, corrupt);
  const removals = kind === "delta" ? integerMeta(meta, META.removals, corrupt) : 0;
  if (rows !== table.numRows) throw corrupt(`it holds ${table.numRows} rows where its metadata says ${rows}`);
  if (removals > rows) throw corrupt(`it lists ${removals} removals among ${rows} rows`);
  const [keyField, ...valueFields] = table.schema.fields;
  if (keyField?.name !== KEY_COLUMN || !arrow.DataType.isBinary(keyField.type)) {
    throw corrupt(`its first column is not the binary "${KEY_COLUMN}" column`);
  }
  const schema: StateSchema = valueFields.map((f): StateColumnSpec => {
    if (arrow.DataType.isFloat(f.type) && f.type.precision === arrow.Precision.DOUBLE) return { name: f.name, kind: "f64" };
    if (arrow.DataType.isBinary(f.type)) return { name: f.name, kind: "bytes" };
    throw corrupt(`column "${f.name}" has type ${f.type}, not Float64 or Binary`);
  });
  return { header: { kind, version, base, operatorKind, schema }, removals, table };
}

function integerMeta(meta: Map<string, string>, key: string, corrupt: (why: string) => CheckpointError): number {
  const text = meta.get(key);
  const n = Number(text);
  if (text === undefined || text === "" || !Number.isSafeInteger(n)) throw corrupt(`its schema metadata "${key}" is ${text === undefined ? "missing" : `"${text}"`}, not a whole number`);
  return n;
}

/** Applies a checked file to `table`: removals, then upserts (a snapshot is all upserts). */
export function applyStateFile(table: StateTable, state: StateFile, file: string): void {
  let first = 0;
  for (const batch of state.table.batches) {
    applyBatch(table, batch, first, state.removals, file);
    first += batch.numRows;
  }
}

/** Rows `first ..` of the file; the rows before `removals` are removals. */
function applyBatch(table: StateTable, batch: arrow.RecordBatch, first: number, removals: number, file: string): void {
  const [keyData, ...valueData] = batch.data.children;
  const n = batch.numRows;
  // Arrow JS slices offsets with the batch, so they start at this batch's first row.
  const offsets = keyData!.valueOffsets as Int32Array;
  const start = offsets[0]!;
  const byteLength = offsets[n]! - start;
  if (byteLength % 4 !== 0) throw new CheckpointError(`state file ${file} is corrupt: its keys are not whole 32-bit words`);
  const words = keyWords(keyData!.values as Uint8Array, start, byteLength);
  const removedHere = Math.max(0, Math.min(n, removals - first));
  for (let i = 0; i < removedHere; i++) {
    const slot = table.get(words, (offsets[i]! - start) / 4, (offsets[i + 1]! - start) / 4);
    if (slot < 0) {
      throw new CheckpointError(`state file ${file} removes a key (row ${first + i}) that the version it builds on does not hold: the files of this state do not belong together`);
    }
    table.remove(slot);
  }
  const slots = new Int32Array(n);
  for (let i = removedHere; i < n; i++) slots[i] = table.put(words, (offsets[i]! - start) / 4, (offsets[i + 1]! - start) / 4);
  valueData.forEach((data, c) => {
    const column = table.column(c);
    const valid = readValidity(data);
    if (column.kind === "f64") {
      // Every key is in the table by now, so the column no longer grows: write its arrays.
      const values = readNumbers(data);
      const to = column.values;
      const toValid = column.valid;
      for (let i = removedHere; i < n; i++) {
        const s = slots[i]!;
        const ok = valid === null || valid[i] === 1;
        to[s] = ok ? values[i]! : 0;
        toValid[s] = ok ? 1 : 0;
      }
      return;
    }
    const valueOffsets = data.valueOffsets as Int32Array;
    const bytes = data.values as Uint8Array;
    for (let i = removedHere; i < n; i++) {
      if (valid === null || valid[i]) column.set(slots[i]!, bytes, valueOffsets[i]!, valueOffsets[i + 1]!);
      else column.clear(slots[i]!);
    }
  });
}

/** Key bytes as words: a view when they are 4-byte aligned (a file read whole), else an aligned copy. */
function keyWords(bytes: Uint8Array, start: number, byteLength: number): Int32Array {
  const at = bytes.byteOffset + start;
  if (at % 4 === 0) return new Int32Array(bytes.buffer, at, byteLength / 4);
  const words = new Int32Array(byteLength / 4);
  new Uint8Array(words.buffer).set(bytes.subarray(start, start + byteLength));
  return words;
}
