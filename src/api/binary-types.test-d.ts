import { describe, expectTypeOf, it } from "vitest";
import { z } from "zod";
import type { ColType, Header } from "../types/dtype.js";
import { base64, col, from_json, hex, unbase64 } from "./functions.js";
import type { Session } from "./session.js";

declare const session: Session;
const kafka = () => session.readStream.format("kafka").option("kafka.bootstrap.servers", "localhost:9092").option("subscribe", "events");
type RowsOf<D extends { collect(): Promise<unknown[]> }> = Awaited<ReturnType<D["collect"]>>[number];

describe("binary and headers column types", () => {
  it("the Kafka source's key and value are binary, Uint8Array | null in collected rows, as Spark's", () => {
    const df = kafka().load();
    expectTypeOf<RowsOf<typeof df>>().toEqualTypeOf<{
      key: Uint8Array | null;
      value: Uint8Array | null;
      topic: string;
      partition: number;
      offset: number;
      timestamp: Date;
      timestampType: number;
    }>();
  });

  it("cast(\"string\") decodes binary into a string column, cast(\"binary\") encodes one", () => {
    const df = kafka().load().select(col("value").cast("string").alias("text"), col("topic").cast("binary"), base64(col("key")), hex(col("value")).alias("hex"), unbase64(col("topic")).alias("raw"));
    type S = NonNullable<(typeof df)["__schema"]>;
    expectTypeOf<S["text"]>().toEqualTypeOf<ColType<"string", true>>();
    expectTypeOf<S["CAST(topic AS BINARY)"]>().toEqualTypeOf<ColType<"binary", true>>();
    expectTypeOf<S["base64(key)"]>().toEqualTypeOf<ColType<"string", true>>();
    expectTypeOf<S["hex"]>().toEqualTypeOf<ColType<"string", true>>();
    expectTypeOf<S["raw"]>().toEqualTypeOf<ColType<"binary", true>>();
    expectTypeOf<RowsOf<typeof df>["text"]>().toEqualTypeOf<string | null>();
  });

  it("option(\"includeHeaders\", true) adds the headers column: { key: string, value: Uint8Array | null }[] | null", () => {
    const df = kafka().option("includeHeaders", true).load();
    expectTypeOf<RowsOf<typeof df>["headers"]>().toEqualTypeOf<{ key: string; value: Uint8Array | null }[] | null>();
    expectTypeOf<RowsOf<typeof df>["headers"]>().toEqualTypeOf<Header[] | null>();
    const decoded = kafka().schema(z.object({ n: z.int() })).option("includeHeaders", "true").load();
    expectTypeOf<keyof RowsOf<typeof decoded>>().toEqualTypeOf<"n" | "key" | "topic" | "partition" | "offset" | "timestamp" | "timestampType" | "headers">();
  });

  it("from_json takes the binary value directly", () => {
    const df = kafka().load().select(from_json(col("value"), z.object({ sensor: z.string() })), "offset");
    expectTypeOf<RowsOf<typeof df>>().toEqualTypeOf<{ sensor: string | null; offset: number }>();
  });

  it("zod declares binary with z.instanceof(Uint8Array), and headers as an array of { key, value }", () => {
    const Raw = z.object({
      payload: z.instanceof(Uint8Array),
      maybe: z.instanceof(Buffer).nullable(),
      headers: z.array(z.object({ key: z.string(), value: z.instanceof(Uint8Array).nullable() })),
    });
    const df = session.createDataFrame([], Raw);
    expectTypeOf<RowsOf<typeof df>>().toEqualTypeOf<{ payload: Uint8Array; maybe: Uint8Array | null; headers: Header[] }>();
  });

  it("a misspelt Kafka column, or a cast to a compound type, does not compile", () => {
    // @ts-expect-error "valeu" is not a column of the Kafka source
    kafka().load().select("valeu");
    // @ts-expect-error nor is col("vaule")
    kafka().load().select(col("vaule").cast("string"));
    // @ts-expect-error headers are not a column without includeHeaders
    kafka().load().select("headers");
    // @ts-expect-error windows and headers have no casts
    col("value").cast("headers");
  });
});
