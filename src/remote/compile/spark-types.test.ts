import { toJson } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { DataTypeSchema } from "../gen/spark/connect/types_pb.js";
import { sparkDataType, sparkDdl, sparkDdlOfZod } from "./spark-types.js";

describe("Sluice types as Spark's", () => {
  it("DDL names every type, NOT NULL where a column is not nullable, and quotes names that are not plain identifiers", () => {
    expect(
      sparkDdl([
        { name: "a", type: "int32", nullable: false },
        { name: "ts", type: "timestamp", nullable: true },
        { name: "n", type: "int64", nullable: true },
        { name: "x", type: "float64", nullable: false },
        { name: "ok", type: "boolean", nullable: true },
        { name: "s", type: "string", nullable: true },
        { name: "bytes", type: "binary", nullable: true },
        { name: "w", type: "window", nullable: false },
        { name: "headers", type: "headers", nullable: true },
        { name: "count(1)", type: "int64", nullable: false },
        { name: "odd`name", type: "string", nullable: true },
      ]),
    ).toBe(
      "a INT NOT NULL, ts TIMESTAMP, n BIGINT, x DOUBLE NOT NULL, ok BOOLEAN, s STRING, bytes BINARY, w STRUCT<start: TIMESTAMP, end: TIMESTAMP> NOT NULL, " +
        "headers ARRAY<STRUCT<key: STRING, value: BINARY>>, `count(1)` BIGINT NOT NULL, `odd``name` STRING",
    );
  });

  it("DDL of a zod schema", () => {
    expect(sparkDdlOfZod(z.object({ user: z.string(), at: z.date(), n: z.int32().nullable(), score: z.number() }))).toBe("user STRING NOT NULL, at TIMESTAMP NOT NULL, n INT, score DOUBLE NOT NULL");
  });

  it("DataType messages", () => {
    const json = (t: Parameters<typeof sparkDataType>[0]) => toJson(DataTypeSchema, sparkDataType(t));
    expect(["string", "float64", "int32", "int64", "boolean", "timestamp", "binary"].map((t) => json(t as never))).toEqual([
      { string: {} },
      { double: {} },
      { integer: {} },
      { long: {} },
      { boolean: {} },
      { timestamp: {} },
      { binary: {} },
    ]);
    expect(json("window")).toEqual({
      struct: {
        fields: [
          { name: "start", dataType: { timestamp: {} }, nullable: true },
          { name: "end", dataType: { timestamp: {} }, nullable: true },
        ],
      },
    });
    expect(json("headers")).toEqual({
      array: {
        elementType: {
          struct: {
            fields: [
              { name: "key", dataType: { string: {} } },
              { name: "value", dataType: { binary: {} }, nullable: true },
            ],
          },
        },
      },
    });
  });
});
