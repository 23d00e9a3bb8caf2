import type * as arrow from "apache-arrow";
import { binaryColumn, makeBatch } from "../../batch/batch.js";
import { AnalysisError } from "../../errors/errors.js";
import type { Field, Fields } from "../../types/dtype.js";
import { ColumnAccumulators } from "../column-accumulators.js";
import type { JsonValuesResult } from "../json-values.js";
import type { ReadMode } from "../read-mode.js";
import { RecordProblem, byteCode, syntaxProblem } from "../record-problem.js";
import { checkValueColumn, decodeValueRecords } from "../value-records.js";
import { missingWriterSchema } from "../writer-schema-source.js";
import type { DecodePlan } from "./avro-plan.js";
import { malformedAvroError } from "./avro-problems.js";
import { AvroReader } from "./avro-reader.js";
import { decodeRecord } from "./avro-record-decoder.js";
import { decodePlanFor } from "./avro-resolution.js";
import type { AvroSchema } from "./avro-schema-types.js";

/**
 * Avro values held in a binary or string column (such as Kafka record values) decoded straight
 * into a columnar `Batch`, as Spark's `from_avro` with its bad-record modes. The contract is
 * `decodeJsonValues`'s (json-values.ts): record i is `bytes[offsets[i], offsets[i + 1])`, a null
 * record (`validity[i] === 0`) is a row of nulls and not malformed, and the result has the same
 * fields.
 *
 * Each record is one datum of the writer's schema in Avro's binary encoding, resolved against the
 * columns as avro-resolution.ts says; bytes left after the datum make the record malformed. With
 * the Confluent wire format, each record starts with the magic byte 0 and the writer schema's
 * registry id (4 bytes, big-endian), and the caller passes the writer schemas by id (fetched
 * beforehand: `schemaIdsIn` lists the ids a column holds). A record whose header is wrong, or
 * whose id is not among the schemas given, is malformed. A writer schema that cannot be resolved
 * against the columns at all fails the whole call with an AnalysisError naming its id.
 *
 * A malformed record, by `mode`:
 * - FAILFAST: throw `MalformedRecordError` naming the record by `describeRecord(i)` and the
 *   problem ("malformed Avro at ...: truncated: field "price" needs 3 more bytes").
 * - DROPMALFORMED: drop it.
 * - PERMISSIVE: keep a row of nulls, as Spark's from_avro does. There is no corrupt-record
 *   column: binary input has no text to put there; `malformedRows` says which records were bad
 *   (a dead-letter topic can take their bytes).
 */

export type AvroWriterSchemas =
  /** Every record is a plain Avro datum of this schema. */
  | { readonly framing: "plain"; readonly schema: AvroSchema }
  /** Every record is in the Confluent wire format, written with the schema of its id. */
  | { readonly framing: "confluent"; readonly schemas: ReadonlyMap<number, AvroSchema> };

export interface AvroValuesOptions {
  readonly mode: ReadMode;
  readonly writer: AvroWriterSchemas;
  /** The reader's own Avro record schema: defaults, aliases and enum symbols for resolution. */
  readonly readerSchema?: AvroSchema;
  /** How FAILFAST messages name record i, such as "topic t partition 0 offset 42"; "record i" when absent. */
  readonly describeRecord?: (i: number) => string;
}

export type AvroValuesResult = JsonValuesResult;

/** The Confluent wire format's header: the magic byte 0, then the schema id as a big-endian 32-bit integer. */
const CONFLUENT_MAGIC = 0;
const CONFLUENT_HEADER_BYTES = 5;

export function decodeAvroValues(
  bytes: Uint8Array,
  /** n + 1 ascending positions in `bytes` for n records. */
  offsets: Int32Array,
  /** One byte per record, 0 for a null record; null when no record is null. */
  validity: Uint8Array | null,
  fields: Fields,
  options: AvroValuesOptions,
): AvroValuesResult {
  const column = { bytes, offsets, validity };
  const numRecords = checkValueColumn(column);
  const plans = new WriterPlans(fields, options);
  const columns = new ColumnAccumulators(fields.map(storedAs), numRecords);
  const reader = new AvroReader();
  reader.reset(bytes);
  const rows = decodeValueRecords(column, numRecords, columns, {
    mode: options.mode,
    decode: (row, start, end) => {
      const plan = plans.plain;
      if (plan !== null) decodeRecord(plan, reader, columns, start, end, row);
      else decodeRecord(plans.confluent(bytes, start, end), reader, columns, start + CONFLUENT_HEADER_BYTES, end, row);
    },
    failFast: (problem, i) => malformedAvroError(problem, options.describeRecord?.(i) ?? `record ${i}`),
  });
  return {
    batch: makeBatch(fields, finishColumns(fields, columns.finish(rows.numRows)), rows.numRows),
    numMalformed: rows.malformedRows.length,
    malformedRows: rows.malformedRows,
    keptRows: rows.keptRows,
  };
}

/**
 * The schema ids of a column of Confluent wire-format records: which writer schemas to fetch
 * before `decodeAvroValues`. Null records and records that are not in the format are passed over
 * (decoding reports them).
 */
export function schemaIdsIn(bytes: Uint8Array, offsets: Int32Array, validity: Uint8Array | null): Set<number> {
  const ids = new Set<number>();
  const numRecords = checkValueColumn({ bytes, offsets, validity });
  let previous = -1;
  for (let i = 0; i < numRecords; i++) {
    if (validity !== null && validity[i] === 0) continue;
    const start = offsets[i]!;
    if (offsets[i + 1]! - start < CONFLUENT_HEADER_BYTES || bytes[start] !== CONFLUENT_MAGIC) continue;
    const id = readSchemaId(bytes, start);
    // Records of one topic nearly always share an id: skip the set for a repeat.
    if (id !== previous) ids.add((previous = id));
  }
  return ids;
}

function readSchemaId(bytes: Uint8Array, start: number): number {
  return ((bytes[start + 1]! << 24) | (bytes[start + 2]! << 16) | (bytes[start + 3]! << 8) | bytes[start + 4]!) >>> 0;
}

/** Decode plans per writer schema, compiled when first needed. */
class WriterPlans {
  /** The one plan of plain framing; null with the Confluent wire format. */
  readonly plain: DecodePlan | null;
  private readonly byId = new Map<number, DecodePlan>();
  private lastId = -1;
  private lastPlan: DecodePlan | null = null;

  constructor(
    private readonly fields: Fields,
    private readonly options: AvroValuesOptions,
  ) {
    const writer = options.writer;
    // Plain framing resolves up front, so that a schema that cannot be read fails before any record.
    this.plain = writer.framing === "plain" ? decodePlanFor(writer.schema, fields, options.readerSchema ?? null) : null;
  }

  /** The plan of the Confluent wire-format record `bytes[start, end)`, by its header. */
  confluent(bytes: Uint8Array, start: number, end: number): DecodePlan {
    if (end - start < CONFLUENT_HEADER_BYTES) {
      throw syntaxProblem(`the value is ${end - start} byte${end - start === 1 ? "" : "s"} long, shorter than the Confluent wire format's 5-byte header`);
    }
    if (bytes[start] !== CONFLUENT_MAGIC) {
      throw syntaxProblem(`the value starts with ${byteCode(bytes[start]!)}, not the Confluent wire format's magic byte 0x00`);
    }
    const id = readSchemaId(bytes, start);
    if (id === this.lastId) return this.lastPlan!;
    let plan = this.byId.get(id);
    if (plan === undefined) {
      const writer = this.options.writer as Extract<AvroWriterSchemas, { framing: "confluent" }>;
      const schema = writer.schemas.get(id);
      if (schema === undefined) {
        throw syntaxProblem(missingWriterSchema(writer.schemas, id));
      }
      try {
        plan = decodePlanFor(schema, this.fields, this.options.readerSchema ?? null);
      } catch (e) {
        if (e instanceof AnalysisError) throw new AnalysisError(`the writer schema with id ${id} cannot be read: ${e.message}`, { cause: e });
        throw e;
      }
      this.byId.set(id, plan);
    }
    this.lastId = id;
    this.lastPlan = plan;
    return plan;
  }
}

/**
 * The column accumulators have no binary kind: binary columns are accumulated as strings (the
 * same offsets and bytes) and relabelled Binary at the end, without a copy.
 */
function storedAs(field: Field): Field {
  return field.type === "binary" ? { ...field, type: "string" } : field;
}

function finishColumns(fields: Fields, columns: arrow.Data[]): arrow.Data[] {
  return columns.map((data, f) => {
    if (fields[f]!.type !== "binary") return data;
    return binaryColumn(data.valueOffsets as Int32Array, data.values as Uint8Array, data.nullCount > 0 ? data.nullBitmap : undefined, data.nullCount);
  });
}

