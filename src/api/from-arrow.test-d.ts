import type * as arrow from "apache-arrow";
import { describe, expectTypeOf, it } from "vitest";
import type { ColType } from "../types/dtype.js";
import type { SchemaOfArrow } from "./readers.js";

describe("fromArrow column types follow dtypeOfArrow", () => {
  it("maps every numeric, temporal and binary Arrow type as the runtime does", () => {
    type Schema = SchemaOfArrow<{
      i8: arrow.Int8;
      i32: arrow.Int32;
      u16: arrow.Uint16;
      u32: arrow.Uint32;
      i64: arrow.Int64;
      u64: arrow.Uint64;
      f16: arrow.Float16;
      f32: arrow.Float32;
      micros: arrow.TimestampMicrosecond;
      days: arrow.DateDay;
      blob: arrow.Binary;
    }>;
    expectTypeOf<Schema>().toEqualTypeOf<{
      readonly i8: ColType<"int32", true>;
      readonly i32: ColType<"int32", true>;
      readonly u16: ColType<"int32", true>;
      readonly u32: ColType<"int64", true>;
      readonly i64: ColType<"int64", true>;
      readonly u64: ColType<"int64", true>;
      readonly f16: ColType<"float64", true>;
      readonly f32: ColType<"float64", true>;
      readonly micros: ColType<"timestamp", true>;
      readonly days: ColType<"timestamp", true>;
      readonly blob: ColType<"binary", true>;
    }>();
  });
});
