import { makeBatch } from "../../batch/batch.js";
import { AnalysisError, MalformedRecordError } from "../../errors/errors.js";
import type { Fields } from "../../types/dtype.js";
import type { JsonValuesResult } from "../json-values.js";
import type { ReadMode } from "../read-mode.js";
import { RecordProblem } from "../record-problem.js";
import { accumulatorsFor, finishColumns } from "./binary-accumulators.js";
import { ConfluentPayloads } from "./confluent-framing.js";
import type { ProtoMessage, ProtoSchema } from "./proto-descriptor.js";
import { ProtobufRecordDecoder } from "./record-decoder.js";
import { ReaderPlan } from "./reader-plan.js";
import type { ReaderPlanOptions } from "./reader-plan.js";
import { checkValueColumn, decodeValueRecords } from "../value-records.js";
import { WriterSchemas } from "./writer-schemas.js";

/**
 * Protobuf messages held in a binary column (such as Kafka record values) decoded straight into a
 * columnar `Batch`, as Spark's `from_protobuf`, with the bad-record modes of `decodeJsonValues`.
 *
 * Record i is `bytes[offsets[i], offsets[i + 1])`, one serialized message of `message` (proto2 or
 * proto3), or, with `confluent`, a message in the Confluent wire format. Columns are matched to
 * the message's fields by name and must have the types proto-types.ts maps them to; fields no
 * column names are skipped. What reads as null follows Spark (see reader-plan.ts).
 *
 * A null record (`validity[i] === 0`) is a row whose fields are all null, as
 * `from_protobuf(null)`; it is not malformed. A malformed record (bad wire format, a field of the
 * wrong wire type, invalid UTF-8 in a proto3 string, a missing proto2 required field, a framing
 * or writer-schema problem), by `mode`:
 * - FAILFAST (Spark's default for from_protobuf): throw `MalformedRecordError` naming the record
 *   by `describeRecord(i)` and the problem.
 * - DROPMALFORMED: drop it.
 * - PERMISSIVE: keep a row whose fields are all null, as Spark does, and put the record's bytes
 *   into the binary column named `columnNameOfCorruptRecord` when `fields` has one.
 */

export interface ProtobufValuesOptions extends ReaderPlanOptions {
  /** The reader's message: the columns' field numbers and types. */
  readonly message: ProtoMessage;
  readonly mode: ReadMode;
  /** How FAILFAST messages name record i, such as "topic t partition 0 offset 42"; "record i" when absent. */
  readonly describeRecord?: (i: number) => string;
  /** A nullable binary column that receives the bytes of malformed records in PERMISSIVE mode. */
  readonly columnNameOfCorruptRecord?: string;
  /** Records are in the Confluent wire format: the writer schemas of their ids, fetched beforehand (`schemaIdsIn`). */
  readonly confluent?: { readonly writerSchemas: ReadonlyMap<number, ProtoSchema> };
}

/** The same contract as decodeJsonValues: rows, malformed counts and indexes, kept input rows. */
export type ProtobufValuesResult = JsonValuesResult;

export function decodeProtobufValues(
  bytes: Uint8Array,
  /** n + 1 ascending positions in `bytes` for n records. */
  offsets: Int32Array,
  /** One byte per record, 0 for a null record; null when no record is null. */
  validity: Uint8Array | null,
  fields: Fields,
  options: ProtobufValuesOptions,
): ProtobufValuesResult {
  const column = { bytes, offsets, validity };
  const numRecords = checkValueColumn(column);
  const corruptField = corruptRecordField(fields, options.columnNameOfCorruptRecord);
  const plan = new ReaderPlan(options.message, fields, corruptField, options);
  const columns = accumulatorsFor(fields, numRecords);
  const decoder = new ProtobufRecordDecoder(plan, columns);
  decoder.reset(bytes);
  const framing = options.confluent === undefined ? null : new ConfluentPayloads(new WriterSchemas(options.message, plan.fields, options.confluent.writerSchemas));
  const rows = decodeValueRecords(column, numRecords, columns, {
    mode: options.mode,
    decode: (row, start, end) => decoder.decode(row, framing === null ? start : framing.payloadStart(bytes, start, end), end),
    failFast: (problem, i) => failFast(problem, i, options),
    keepMalformed: corruptField < 0 ? undefined : (row, start, end) => columns.writeRawString(corruptField, row, bytes, start, end),
  });
  return {
    batch: makeBatch(fields, finishColumns(columns, fields, rows.numRows), rows.numRows),
    numMalformed: rows.malformedRows.length,
    malformedRows: rows.malformedRows,
    keptRows: rows.keptRows,
  };
}

/** Column names are distinct; the corrupt-record column, when present, is a nullable binary column. */
function corruptRecordField(fields: Fields, name: string | undefined): number {
  const names = new Set<string>();
  for (const f of fields) {
    if (names.has(f.name)) throw new AnalysisError(`the columns name "${f.name}" twice; column names must be distinct`);
    names.add(f.name);
  }
  const index = name === undefined ? -1 : fields.findIndex((f) => f.name === name);
  if (index < 0) return -1;
  const f = fields[index]!;
  if (f.type !== "binary" || !f.nullable) {
    throw new AnalysisError(
      `the corrupt-record column "${name}" must be a nullable binary column (a record's bytes), but it is a ${f.nullable ? "" : "non-nullable "}${f.type}`,
    );
  }
  return index;
}

/** The FAILFAST error: where the record is, then what was wrong with it. */
function failFast(problem: RecordProblem, i: number, options: ProtobufValuesOptions): MalformedRecordError {
  const where = options.describeRecord?.(i) ?? `record ${i}`;
  const what = problem.kind === "syntax" ? "malformed Protobuf" : "Protobuf record does not match the schema";
  return new MalformedRecordError(`${what} at ${where}: ${problem.detail}`, undefined, undefined);
}
