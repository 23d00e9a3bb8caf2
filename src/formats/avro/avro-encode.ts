import type * as arrow from "apache-arrow";
import { binaryColumn, type Batch } from "../../batch/batch.js";
import { OptionError } from "../../errors/errors.js";
import { avroSchemaOfFields } from "./avro-columns.js";
import { columnEncoder } from "./avro-column-encoders.js";

/**
 * A batch's rows encoded as Avro binary data, one datum per row, in the record schema
 * `avroSchemaOfFields(batch.fields)` describes (register that schema to get the id for the
 * Confluent header). Column at a time: a first pass adds up each row's size column by column, a
 * second writes each column's values into every row's slot; no object is made per row.
 */

export interface AvroEncodeOptions {
  /** Put the Confluent wire format's header (magic byte 0, this id big-endian) before each datum. */
  readonly schemaId?: number;
}

export interface EncodedAvroValues {
  /** numRows + 1 ascending positions: row i's datum is `bytes[offsets[i], offsets[i + 1])`. */
  readonly offsets: Int32Array;
  readonly bytes: Uint8Array;
}

const CONFLUENT_HEADER_BYTES = 5;
const MAX_SCHEMA_ID = 0x7fffffff;

export function encodeAvroValues(batch: Batch, options: AvroEncodeOptions = {}): EncodedAvroValues {
  // Checks the columns can be written (valid names, writable types): the same rules as the schema they are written in.
  avroSchemaOfFields(batch.fields);
  const id = options.schemaId;
  if (id !== undefined && !(Number.isInteger(id) && id >= 0 && id <= MAX_SCHEMA_ID)) {
    throw new OptionError(`a Confluent schema id is a whole number from 0 to ${MAX_SCHEMA_ID}, got ${id}`);
  }
  const n = batch.numRows;
  const encoders = batch.fields.map((f, c) => columnEncoder(f, batch.columns[c]!));
  const sizes = new Int32Array(n).fill(id === undefined ? 0 : CONFLUENT_HEADER_BYTES);
  for (const e of encoders) e.size(sizes);
  const offsets = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) offsets[i + 1] = offsets[i]! + sizes[i]!;
  const bytes = new Uint8Array(offsets[n]!);
  const view = new DataView(bytes.buffer);
  const cursors = offsets.slice(0, n);
  if (id !== undefined) {
    for (let i = 0; i < n; i++) {
      const at = cursors[i]!;
      bytes[at] = 0;
      view.setUint32(at + 1, id); // big-endian
      cursors[i] = at + CONFLUENT_HEADER_BYTES;
    }
  }
  for (const e of encoders) e.write(bytes, view, cursors);
  return { offsets, bytes };
}

/** The encoded rows as an Arrow Binary column (such as a Kafka sink's value column). */
export function encodeAvroColumn(batch: Batch, options: AvroEncodeOptions = {}): arrow.Data<arrow.Binary> {
  const { offsets, bytes } = encodeAvroValues(batch, options);
  return binaryColumn(offsets, bytes);
}
