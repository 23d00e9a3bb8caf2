import * as arrow from "apache-arrow";
import { describe, expect, it } from "vitest";
import { AnalysisError } from "../errors/errors.js";
import { dtypeOfArrow } from "./arrow-types.js";

describe("dtypeOfArrow", () => {
  it("maps Binary and LargeBinary to binary", () => {
    expect(dtypeOfArrow(new arrow.Binary(), "blob")).toBe("binary");
    expect(dtypeOfArrow(new arrow.LargeBinary(), "blob")).toBe("binary");
  });

  it("maps every numeric and temporal Arrow type to the Sluice type that holds it without loss", () => {
    const cases: [arrow.DataType, string][] = [
      [new arrow.Int8(), "int32"],
      [new arrow.Int16(), "int32"],
      [new arrow.Int32(), "int32"],
      [new arrow.Uint8(), "int32"],
      [new arrow.Uint16(), "int32"],
      [new arrow.Uint32(), "int64"],
      [new arrow.Int64(), "int64"],
      [new arrow.Uint64(), "int64"],
      [new arrow.Float16(), "float64"],
      [new arrow.Float32(), "float64"],
      [new arrow.Float64(), "float64"],
      [new arrow.TimestampSecond(), "timestamp"],
      [new arrow.TimestampMicrosecond("UTC"), "timestamp"],
      [new arrow.TimestampNanosecond(), "timestamp"],
      [new arrow.DateDay(), "timestamp"],
      [new arrow.DateMillisecond(), "timestamp"],
      [new arrow.Struct([new arrow.Field("start", new arrow.TimestampMicrosecond()), new arrow.Field("end", new arrow.TimestampMicrosecond())]), "window"],
    ];
    expect(cases.map(([t]) => dtypeOfArrow(t, "c"))).toEqual(cases.map(([, d]) => d));
  });

  it("refuses other types with an AnalysisError naming the column", () => {
    expect(() => dtypeOfArrow(new arrow.FixedSizeBinary(4), "blob")).toThrow(AnalysisError);
    expect(() => dtypeOfArrow(new arrow.FixedSizeBinary(4), "blob")).toThrow('column "blob": Arrow type FixedSizeBinary[4] is not supported');
    const notAWindow = new arrow.Struct([new arrow.Field("start", new arrow.Int32()), new arrow.Field("end", new arrow.Int32())]);
    expect(() => dtypeOfArrow(notAWindow, "w")).toThrow('column "w": Arrow type Struct');
  });
});
