import { describe, expect, it } from "vitest";
import { z } from "zod";
import { withSession } from "../testing/fixtures.js";
import { col } from "./functions.js";
import { vectorUdf } from "./udf.js";

const UDFS = new URL("./testing/test-udfs.ts", import.meta.url);

describe("vector UDF results", () => {
  it("take Vectors of several chunks, BigInt64Array, Uint8Array booleans, epoch milliseconds, narrower ints and arrays of bytes", () =>
    withSession(0, async (session) => {
      const df = session.createDataFrame([{ name: "a" }, { name: null }, { name: "cd" }], z.object({ name: z.string().nullable() }));
      const rows = await df
        .select(
          vectorUdf(UDFS, "chunked", "float64")(col("name")).alias("f"),
          vectorUdf(UDFS, "bigints", "int64")(col("name")).alias("big"),
          vectorUdf(UDFS, "evens", "boolean")(col("name")).alias("even"),
          vectorUdf(UDFS, "epochMillis", "timestamp")(col("name")).alias("t"),
          vectorUdf(UDFS, "narrowInts", "int32")(col("name")).alias("i"),
          vectorUdf(UDFS, "bytesOf", "binary")(col("name")).alias("b"),
        )
        .toArrow();
      const get = (name: string) => rows.getChild(name)!.toArray();
      expect(Array.from(get("f") as Float64Array)).toEqual([0, 1.5, 3]);
      expect(Array.from(get("big") as BigInt64Array)).toEqual([2n ** 60n, 2n ** 60n + 1n, 2n ** 60n + 2n]);
      expect([...rows.getChild("even")!]).toEqual([true, false, true]);
      expect([...rows.getChild("t")!].map(Number)).toEqual([0, 1, 2].map((i) => Date.UTC(2026, 0, 1) + i * 60_000));
      expect(Array.from(get("i") as Int32Array)).toEqual([0, -1, -2]);
      expect([...rows.getChild("b")!].map((v) => (v === null ? null : new TextDecoder().decode(v as Uint8Array)))).toEqual(["a", null, "cd"]);
    }));
});
