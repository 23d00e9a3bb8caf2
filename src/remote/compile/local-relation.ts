import { create } from "@bufbuild/protobuf";
import * as arrow from "apache-arrow";
import { arrowType } from "../../schema/arrow-types.js";
import type { Batch } from "../../batch/batch.js";
import { utf8FromStrings } from "../../batch/batch.js";
import { columnValues } from "../../batch/rows.js";
import type { DType, Field, Fields } from "../../types/dtype.js";
import { type Relation, RelationSchema } from "../gen/spark/connect/relations_pb.js";
import { sparkDdl } from "./spark-types.js";

/**
 * In-memory rows sent to the server as a `LocalRelation`: an Arrow IPC stream in the types Spark's
 * Arrow reader maps back to the schema's: strings as plain Utf8 (Spark reads a dictionary-encoded
 * column as its indices), timestamps as Timestamp(MICROSECOND, "UTC") (Spark's TIMESTAMP; one
 * without a time zone would be TIMESTAMP_NTZ). The DDL schema goes along, for nullability and for
 * an empty table (no batches: the schema alone).
 */
export function localRelation(batches: readonly Batch[], fields: Fields): Relation {
  const nonEmpty = batches.filter((b) => b.numRows > 0);
  const schema = sparkDdl(fields);
  if (nonEmpty.length === 0) return create(RelationSchema, { relType: { case: "localRelation", value: { schema } } });
  return create(RelationSchema, { relType: { case: "localRelation", value: { data: sparkArrowStream(nonEmpty, fields), schema } } });
}

/** The batches as one Arrow IPC stream in Spark's Arrow types. */
export function sparkArrowStream(batches: readonly Batch[], fields: Fields): Uint8Array {
  const schema = new arrow.Schema(fields.map((f) => new arrow.Field(f.name, sparkArrowType(f.type), f.nullable)));
  const recordBatches = batches.map((b) => {
    const children = b.columns.map((c, i) => sparkColumn(c, fields[i]!, b.numRows));
    const struct = arrow.makeData({ type: new arrow.Struct(schema.fields), length: b.numRows, nullCount: 0, children });
    return new arrow.RecordBatch(schema, struct);
  });
  return arrow.tableToIPC(new arrow.Table(schema, recordBatches), "stream");
}

/** Spark's timestamps: microseconds in UTC; its window structs' bounds are nullable. */
const SPARK_TIMESTAMPS = { type: () => new arrow.TimestampMicrosecond("UTC"), windowNullable: true };

/** The Arrow type Spark reads as the Spark type of a Sluice column (spark-types.ts). */
function sparkArrowType(t: DType): arrow.DataType {
  return arrowType(t, SPARK_TIMESTAMPS);
}

/** A Sluice column in the Arrow type Spark expects for its field. */
function sparkColumn(data: arrow.Data, field: Field, n: number): arrow.Data {
  switch (field.type) {
    case "string":
      // A string column handed in through fromArrow may still be dictionary-encoded.
      return arrow.DataType.isDictionary(data.type) ? utf8FromStrings(columnValues(data, field, n) as (string | null)[]) : data;
    case "timestamp":
      return microsFromMillis(data);
    case "window": {
      const children = data.children.map(microsFromMillis);
      const type = sparkArrowType("window");
      return new arrow.Data(type, data.offset, data.length, data.nullCount > 0 ? data.nullCount : 0, [undefined, undefined, data.nullCount > 0 ? data.nullBitmap : undefined] as never, children);
    }
    case "headers":
      return new arrow.Data(sparkArrowType("headers"), data.offset, data.length, data.nullCount > 0 ? data.nullCount : 0, [data.valueOffsets, undefined, data.nullCount > 0 ? data.nullBitmap : undefined] as never, data.children);
    default:
      return data;
  }
}

/** Timestamp(ms) values (Sluice's) times 1000, as Timestamp(us, "UTC"); validity kept. */
function microsFromMillis(data: arrow.Data): arrow.Data {
  const millis = data.values as BigInt64Array;
  const micros = new BigInt64Array(data.length);
  for (let i = 0; i < data.length; i++) micros[i] = millis[i]! * 1000n;
  return new arrow.Data(SPARK_TIMESTAMPS.type(), data.offset, data.length, data.nullCount > 0 ? data.nullCount : 0, [undefined, micros, data.nullCount > 0 ? data.nullBitmap : undefined] as never);
}
