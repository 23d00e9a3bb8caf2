import * as arrow from "apache-arrow";
import { describe, expect, it } from "vitest";
import { batchToRows } from "../../batch/rows.js";
import { InternalError } from "../../errors/errors.js";
import { at } from "../../testing/fixtures.js";
import type { Fields } from "../../types/dtype.js";
import { batchFromSparkArrow } from "./spark-arrow-batch.js";

/** A table as Spark Connect sends it: an Arrow IPC stream read back with tableFromIPC. */
const fromSpark = (table: arrow.Table) => arrow.tableFromIPC(arrow.tableToIPC(table, "stream"));
const micros = (d: Date) => BigInt(d.getTime()) * 1000n;
const sparkTs = new arrow.TimestampMicrosecond("UTC");
/** Timestamp(us, UTC) data from microseconds (null: a null row). */
function sparkTimes(values: (bigint | null)[]): arrow.Data<arrow.TimestampMicrosecond> {
  const longs = arrow.vectorFromArray(values, new arrow.Int64()).data[0]!;
  return arrow.makeData({ type: sparkTs, length: values.length, nullCount: longs.nullCount, nullBitmap: longs.nullBitmap, data: longs.values as BigInt64Array });
}

describe("Spark's Arrow results as Sluice batches", () => {
  it("converts timestamps (microseconds, UTC), longs, windows and text to Sluice's columns, by position", () => {
    const window = new arrow.Struct([new arrow.Field("start", sparkTs, true), new arrow.Field("end", sparkTs, true)]);
    const table = fromSpark(
      new arrow.Table({
        k: arrow.vectorFromArray(["a", null], new arrow.Utf8()),
        // Spark names the columns of a join on a condition as each side does: duplicates are read by position.
        k2: arrow.vectorFromArray(["b", "c"], new arrow.Utf8()),
        n: arrow.vectorFromArray([2n ** 40n, null], new arrow.Int64()),
        t: arrow.makeVector(sparkTimes([micros(at("09:00")) + 999n, -1n])),
        w: arrow.makeVector(
          arrow.makeData({
            type: window,
            length: 2,
            nullCount: 1,
            nullBitmap: new Uint8Array([1]),
            children: [sparkTimes([micros(at("09:00")), null]), sparkTimes([micros(at("10:00")), null])],
          }),
        ),
        h: arrow.vectorFromArray([7, null], new arrow.Int32()),
        d: arrow.vectorFromArray([0.5, 1], new arrow.Float64()),
        b: arrow.vectorFromArray([true, null], new arrow.Bool()),
        bin: arrow.vectorFromArray([new Uint8Array([1, 2]), null], new arrow.Binary()),
      }),
    );
    const fields: Fields = [
      { name: "k", type: "string", nullable: true },
      { name: "k", type: "string", nullable: true },
      { name: "n", type: "int64", nullable: true },
      { name: "t", type: "timestamp", nullable: false },
      { name: "w", type: "window", nullable: true },
      { name: "h", type: "int32", nullable: true },
      { name: "d", type: "float64", nullable: false },
      { name: "b", type: "boolean", nullable: true },
      { name: "bin", type: "binary", nullable: true },
    ];
    const batch = batchFromSparkArrow(table, fields);
    expect(batch.columns.map((c) => String(c.type))).toEqual([
      "Utf8",
      "Utf8",
      "Int64",
      "Timestamp<MILLISECOND>",
      "Struct<{start:Timestamp<MILLISECOND>, end:Timestamp<MILLISECOND>}>",
      "Int32",
      "Float64",
      "Bool",
      "Binary",
    ]);
    expect(batch.numRows).toBe(2);
    const rows = batchToRows({ ...batch, fields: fields.map((f, i) => ({ ...f, name: `${f.name}${i}` })) });
    expect(rows).toEqual([
      { k0: "a", k1: "b", n2: 2 ** 40, t3: at("09:00"), w4: { start: at("09:00"), end: at("10:00") }, h5: 7, d6: 0.5, b7: true, bin8: new Uint8Array([1, 2]) },
      // -1 µs is floored to -1 ms, as Spark's microsToMillis.
      { k0: null, k1: "c", n2: null, t3: new Date(-1), w4: null, h5: null, d6: 1, b7: null, bin8: null },
    ]);
  });

  it("joins several Arrow batches, widens an Int64 count to an int32 field, and reads Spark's NullType as nulls of the field's type", () => {
    const part = (xs: number[]) =>
      new arrow.Table({ n: arrow.vectorFromArray(xs.map(BigInt), new arrow.Int64()), z: arrow.makeVector(arrow.makeData({ type: new arrow.Null(), length: xs.length })) });
    const table = new arrow.Table([...fromSpark(part([1, 2])).batches, ...fromSpark(part([3])).batches]);
    const batch = batchFromSparkArrow(table, [
      { name: "n", type: "int32", nullable: false },
      { name: "z", type: "string", nullable: true },
    ]);
    expect(batchToRows(batch)).toEqual([
      { n: 1, z: null },
      { n: 2, z: null },
      { n: 3, z: null },
    ]);
    expect(batch.columns.map((c) => String(c.type))).toEqual(["Int32", "Utf8"]);
  });

  it("reads Spark's decimals as numbers", () => {
    // Decimal(10, 2): 12.34 and -0.05 unscaled, as 128-bit little-endian words.
    const words = new Uint32Array([1234, 0, 0, 0, 0, 0, 0, 0, 2 ** 32 - 5, 2 ** 32 - 1, 2 ** 32 - 1, 2 ** 32 - 1]);
    const data = arrow.makeData({ type: new arrow.Decimal(2, 10, 128), length: 3, nullCount: 1, nullBitmap: new Uint8Array([0b101]), data: words });
    const table = fromSpark(new arrow.Table({ d: arrow.makeVector(data) }));
    expect(batchToRows(batchFromSparkArrow(table, [{ name: "d", type: "float64", nullable: true }]))).toEqual([{ d: 12.34 }, { d: null }, { d: -0.05 }]);
  });

  it("an empty answer (no Arrow batch at all) is an empty batch of the plan's fields", () => {
    const batch = batchFromSparkArrow(new arrow.Table(), [{ name: "a", type: "timestamp", nullable: true }]);
    expect(batch.numRows).toBe(0);
    expect(batch.fields).toEqual([{ name: "a", type: "timestamp", nullable: true }]);
  });

  it("refuses an answer whose columns are not the plan's", () => {
    const table = fromSpark(new arrow.Table({ a: arrow.vectorFromArray(["x"], new arrow.Utf8()) }));
    expect(() => batchFromSparkArrow(table, [{ name: "a", type: "int32", nullable: true }])).toThrow(new InternalError("column a (int32) from Spark's Utf8: expected numbers"));
    expect(() => batchFromSparkArrow(table, [])).toThrow("the Spark Connect server returned 1 columns (a) where the plan has 0 ()");
  });
});
