import * as arrow from "apache-arrow";
import type { Batch } from "../../batch/batch.js";
import { fileColumn } from "../../formats/file-column.js";
import { arrowType } from "../../schema/arrow-types.js";
import type { DType } from "../../types/dtype.js";

/** Sluice's timestamps are instants; files say so with the zone "UTC" (Parquet: isAdjustedToUTC). */
const UTC_MILLIS = new arrow.TimestampMillisecond("UTC");

function fileType(type: DType): arrow.DataType {
  if (type === "timestamp") return UTC_MILLIS;
  if (type === "window") return new arrow.Struct((arrowType("window") as arrow.Struct).children.map((c) => new arrow.Field(c.name, UTC_MILLIS, c.nullable)));
  return arrowType(type);
}

/** The same buffers under another Arrow type of the same layout (a time zone added). */
function retype(data: arrow.Data, type: arrow.DataType): arrow.Data {
  const children = data.children.map((c, i) => retype(c, (type as arrow.Struct).children[i]!.type));
  return new arrow.Data(type, data.offset, data.length, data.nullCount, data.buffers, children);
}

/**
 * A batch as the Arrow record batch its files hold: canonical column types (dictionary strings
 * resolved), timestamps and window bounds in milliseconds with the zone "UTC". Columns already
 * canonical are not copied.
 */
export function utcRecordBatch(batch: Batch): arrow.RecordBatch {
  const fields = batch.fields.map((f) => new arrow.Field(f.name, fileType(f.type), f.nullable));
  const children = batch.fields.map((f, c) => retype(fileColumn(batch.columns[c]!, f.type, f.name), fields[c]!.type));
  const struct = arrow.makeData({ type: new arrow.Struct(fields), length: batch.numRows, nullCount: 0, children });
  return new arrow.RecordBatch(new arrow.Schema(fields), struct);
}
