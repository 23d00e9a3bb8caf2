import * as arrow from "apache-arrow";
import { readNumbers, readValidity, validityFromBytes } from "../batch/batch.js";
import { CheckpointError } from "../errors/errors.js";
import { StateTable, type StateColumnSpec, type StateSchema } from "./state-table.js";

/**
 * A state version as one Arrow IPC file: a record batch with the encoded key of each live row
 * (Binary, the key's words as little-endian bytes) followed by the value columns under their
 * schema names (f64 -> Float64, bytes -> Binary; both nullable). The file is self-describing, so
 * a snapshot names the value schema it was written with.
 */
const KEY_COLUMN = "#key";

export function snapshotToIPC(table: StateTable): Uint8Array {
  const slots = table.liveSlots();
  const n = slots.length;
  const keys = table.keyTable;
  const keyOffsets = new Int32Array(n + 1);
  for (let j = 0; j < n; j++) keyOffsets[j + 1] = keyOffsets[j]! + keys.keyLength(slots[j]!) * 4;
  const keyWords = new Int32Array(keyOffsets[n]! / 4);
  for (let j = 0; j < n; j++) keyWords.set(keys.keyOf(slots[j]!), keyOffsets[j]! / 4);
  const fields: arrow.Field[] = [new arrow.Field(KEY_COLUMN, new arrow.Binary(), false)];
  const children: arrow.Data[] = [binary(keyOffsets, new Uint8Array(keyWords.buffer), null)];
  table.schema.forEach((spec, c) => {
    fields.push(new arrow.Field(spec.name, spec.kind === "f64" ? new arrow.Float64() : new arrow.Binary(), true));
    children.push(valueColumn(table, c, slots));
  });
  const schema = new arrow.Schema(fields);
  const struct = arrow.makeData({ type: new arrow.Struct(fields), length: n, nullCount: 0, children });
  return arrow.tableToIPC(new arrow.Table(new arrow.RecordBatch(schema, struct)), "file");
}

function valueColumn(table: StateTable, c: number, slots: Int32Array): arrow.Data {
  const n = slots.length;
  const column = table.column(c);
  const valid = new Uint8Array(n);
  for (let j = 0; j < n; j++) valid[j] = column.valid[slots[j]!]!;
  if (column.kind === "f64") {
    const values = new Float64Array(n);
    for (let j = 0; j < n; j++) values[j] = column.values[slots[j]!]!;
    const { bitmap, nullCount } = validityFromBytes(valid, n);
    return arrow.makeData({ type: new arrow.Float64(), length: n, data: values, nullBitmap: bitmap, nullCount });
  }
  const offsets = new Int32Array(n + 1);
  for (let j = 0; j < n; j++) offsets[j + 1] = offsets[j]! + (valid[j] ? column.ends[slots[j]!]! - column.starts[slots[j]!]! : 0);
  const bytes = new Uint8Array(offsets[n]!);
  for (let j = 0; j < n; j++) if (valid[j]) bytes.set(column.arena.subarray(column.starts[slots[j]!]!, column.ends[slots[j]!]!), offsets[j]!);
  return binary(offsets, bytes, valid);
}

function binary(offsets: Int32Array, bytes: Uint8Array, valid: Uint8Array | null): arrow.Data {
  const length = offsets.length - 1;
  const { bitmap, nullCount } = valid ? validityFromBytes(valid, length) : { bitmap: undefined, nullCount: 0 };
  return arrow.makeData({ type: new arrow.Binary(), length, valueOffsets: offsets, data: bytes, nullBitmap: bitmap, nullCount });
}

/** The state table stored in a snapshot; `file` names it in errors. */
export function snapshotFromIPC(bytes: Uint8Array, file: string): StateTable {
  let source: arrow.Table;
  try {
    source = arrow.tableFromIPC(bytes);
  } catch (e) {
    throw new CheckpointError(`state snapshot ${file} is corrupt: ${(e as Error).message}`, { cause: e });
  }
  const [keyField, ...valueFields] = source.schema.fields;
  if (keyField?.name !== KEY_COLUMN || !arrow.DataType.isBinary(keyField.type)) {
    throw new CheckpointError(`state snapshot ${file} is not a Sluice state snapshot: its first column is not "${KEY_COLUMN}"`);
  }
  const schema: StateSchema = valueFields.map((f): StateColumnSpec => {
    if (arrow.DataType.isFloat(f.type)) return { name: f.name, kind: "f64" };
    if (arrow.DataType.isBinary(f.type)) return { name: f.name, kind: "bytes" };
    throw new CheckpointError(`state snapshot ${file}: column "${f.name}" has unsupported type ${f.type}`);
  });
  const table = new StateTable(schema, source.numRows);
  for (const batch of source.batches) loadBatch(table, batch);
  table.clearUpdated();
  return table;
}

/** Adds a snapshot batch's rows; offsets start at the batch's first row (Arrow JS slices them). */
function loadBatch(table: StateTable, batch: arrow.RecordBatch): void {
  const [keyData, ...valueData] = batch.data.children;
  const n = batch.numRows;
  const offsets = keyData!.valueOffsets as Int32Array;
  // Copy the key bytes once into an aligned buffer so they can be read as words.
  const start = offsets[0]!;
  const end = offsets[n]!;
  const words = new Int32Array((end - start) / 4);
  new Uint8Array(words.buffer).set((keyData!.values as Uint8Array).subarray(start, end));
  const slots = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const from = (offsets[i]! - start) / 4;
    const to = (offsets[i + 1]! - start) / 4;
    slots[i] = table.put(words, from, to);
  }
  valueData.forEach((data, c) => {
    const column = table.column(c);
    const valid = readValidity(data);
    if (column.kind === "f64") {
      const values = readNumbers(data);
      for (let i = 0; i < n; i++) if (valid === null || valid[i]) column.set(slots[i]!, values[i]!);
      return;
    }
    const valueOffsets = data.valueOffsets as Int32Array;
    const bytes = data.values as Uint8Array;
    for (let i = 0; i < n; i++) {
      if (valid !== null && !valid[i]) continue;
      column.set(slots[i]!, bytes, valueOffsets[i]!, valueOffsets[i + 1]!);
    }
  });
}
