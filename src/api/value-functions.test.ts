import { describe, expect, it } from "vitest";
import { z } from "zod";
import { AnalysisError, MalformedRecordError, OptionError } from "../errors/errors.js";
import { parseProtoSchema } from "../formats/protobuf/proto-schema.js";
import { WORKER_COUNTS, withSession } from "../testing/fixtures.js";
import { addData, checkAnswer, testStream } from "../testing/stream-test.js";
import { col, count, struct } from "./functions.js";
import { from_avro, from_protobuf, to_avro, to_protobuf } from "./value-functions.js";

// from_avro / to_avro and from_protobuf / to_protobuf in queries, without a registry (the
// registry's Confluent framing is in value-functions.registry.test.ts).

const Order = z.object({ id: z.int32(), item: z.string().nullable() });
const orders = [
  { id: 1, item: "a" },
  { id: 2, item: null },
  { id: -3, item: "pen" },
];
const bytes = (...b: number[]) => Uint8Array.from(b);
const Raw = z.object({ value: z.instanceof(Uint8Array).nullable() });

const ORDER_PROTO = `syntax = "proto3";
package shop;
message Order {
  int32 id = 1;
  optional string item = 2;
}
`;

describe.each(WORKER_COUNTS)("Avro and Protobuf functions with %i workers", (workers) => {
  it("to_avro(struct) writes Spark's record encoding, and from_avro reads it back", () =>
    withSession(workers, async (session) => {
      const encoded = await session.createDataFrame(orders, Order).select(to_avro(struct("id", "item")).alias("value")).collect();
      // id zigzag (1 -> 02), then the ["null", "string"] union: branch 1 and the string, or branch 0 for null.
      expect(encoded.map((r) => r.value)).toEqual([bytes(0x02, 0x02, 0x02, 0x61), bytes(0x04, 0x00), bytes(0x05, 0x02, 0x06, 0x70, 0x65, 0x6e)]);
      const decoded = await session.createDataFrame(encoded, Raw).select(from_avro(col("value"), Order)).collect();
      expect(decoded).toEqual(orders);
    }));

  it("to_avro of a lone column is its value, null where the column is", () =>
    withSession(workers, async (session) => {
      const out = await session.createDataFrame(orders, Order).select("id", to_avro(col("item")).alias("v")).collect();
      expect(out).toEqual([
        { id: 1, v: bytes(0x02, 0x02, 0x61) },
        { id: 2, v: null },
        { id: -3, v: bytes(0x02, 0x06, 0x70, 0x65, 0x6e) },
      ]);
    }));

  it("from_avro resolves the writer's schema (avroSchema) to the zod schema's columns: a long read as int64, a field skipped", () =>
    withSession(workers, async (session) => {
      const writer = JSON.stringify({
        type: "record",
        name: "topLevelRecord",
        fields: [
          { name: "skipped", type: "string" },
          { name: "n", type: "long" },
        ],
      });
      // "xy" (skipped), then n = 2^40 as a zigzag varint.
      const value = bytes(0x04, 0x78, 0x79, 0x80, 0x80, 0x80, 0x80, 0x80, 0x40);
      const out = await session
        .createDataFrame([{ value }, { value: null }], Raw)
        .select(from_avro(col("value"), z.object({ n: z.int() }), { avroSchema: writer }))
        .collect();
      expect(out).toEqual([{ n: 2 ** 40 }, { n: null }]);
    }));

  it("from_avro's modes: FAILFAST (Spark's default) names the row and the problem; PERMISSIVE gives a row of nulls", () =>
    withSession(workers, async (session) => {
      const truncated = session.createDataFrame([{ value: bytes(0x02, 0x02, 0x08, 0x61) }], Raw);
      await expect(truncated.select(from_avro(col("value"), Order)).collect()).rejects.toThrow(MalformedRecordError);
      await expect(truncated.select(from_avro(col("value"), Order)).collect()).rejects.toThrow(/malformed Avro at row 0 of the batch: .*truncated/);
      expect(await truncated.select(from_avro(col("value"), Order, { mode: "PERMISSIVE" })).collect()).toEqual([{ id: null, item: null }]);
    }));

  it("to_protobuf and from_protobuf round trip through the message's fields", () =>
    withSession(workers, async (session) => {
      const shop = await parseProtoSchema(ORDER_PROTO);
      const encoded = await session.createDataFrame(orders, Order).select(to_protobuf(struct("id", "item"), "shop.Order", shop).alias("value")).collect();
      // Field 1 varint (tag 08), field 2 length-delimited (tag 12); -3 as int32 is a ten-byte varint.
      expect(encoded[0]!.value).toEqual(bytes(0x08, 0x01, 0x12, 0x01, 0x61));
      expect(encoded[1]!.value).toEqual(bytes(0x08, 0x02));
      const decoded = await session.createDataFrame(encoded, Raw).select(from_protobuf(col("value"), Order, "shop.Order", shop)).collect();
      expect(decoded).toEqual(orders);
    }));
});

describe("Avro and Protobuf functions in a streaming query", () => {
  it("decodes each batch's Avro values before a windowless count per item", async () => {
    await withSession(2, async (session) => {
      const stream = session.memoryStream(Raw);
      const a = bytes(0x02, 0x02, 0x02, 0x61);
      const pen = bytes(0x05, 0x02, 0x06, 0x70, 0x65, 0x6e);
      const counts = stream.toDF().select(from_avro(col("value"), Order)).groupBy("item").agg(count().alias("n"));
      await testStream(counts, "complete").run(
        addData(stream, { value: a }, { value: pen }),
        checkAnswer({ item: "a", n: 1 }, { item: "pen", n: 1 }),
        addData(stream, { value: a }),
        checkAnswer({ item: "a", n: 2 }, { item: "pen", n: 1 }),
      );
    });
  });
});

describe("Avro and Protobuf functions refuse what cannot work, naming the fix", () => {
  it("from_avro needs a binary column, and columns the Avro schema has", () =>
    withSession(0, async (session) => {
      const text = session.createDataFrame([{ s: "x" }], z.object({ s: z.string() }));
      expect(() => text.select(from_avro(col("s"), Order))).toThrow(new AnalysisError("from_avro() needs a binary column, but s is string"));
      const raw = session.createDataFrame([{ value: null }], Raw);
      const writer = { type: "record", name: "topLevelRecord", fields: [{ name: "id", type: "int" }] };
      const Total = z.object({ id: z.int32(), total: z.int32() });
      expect(() => raw.select(from_avro(col("value"), Total, { avroSchema: writer }))).toThrow(AnalysisError);
      expect(() => raw.select(from_avro(col("value"), Total, { avroSchema: writer }))).toThrow(
        new AnalysisError(
          'from_avro(): column "total" is not a field of the Avro record topLevelRecord in avroSchema; its fields are id: add the field (with a default, for values written without it), or remove the column',
        ),
      );
      // A column of the wrong type for its field: the decoder's own words, at select().
      const Id = z.object({ id: z.string() });
      expect(() => raw.select(from_avro(col("value"), Id, { avroSchema: writer }))).toThrow(/^from_avro\(\): .*"id"/);
    }));

  it("from_avro refuses DROPMALFORMED in a select, an unknown option, and registry options without the URL", () => {
    expect(() => from_avro(col("value"), Order, { mode: "DROPMALFORMED" as "FAILFAST" })).toThrow(/DROPMALFORMED would change the row count of a select/);
    expect(() => from_avro(col("value"), Order, { avroschema: "{}" } as object)).toThrow(OptionError);
    expect(() => from_avro(col("value"), Order, { "basic.auth.user.info": "u:secret" })).toThrow(
      new OptionError("from_avro() options: basic.auth.user.info is set but schema.registry.url is not: set the registry's URL too, or drop basic.auth.user.info"),
    );
  });

  it("to_avro needs Avro field names, and to_avro / to_protobuf a subject with a registry", async () => {
    await withSession(0, async (session) => {
      const df = session.createDataFrame(orders, Order);
      expect(() => df.select(to_avro(struct(col("id").plus(1))).alias("v"))).not.toThrow();
      expect(() => df.select(to_avro(struct(col("id").alias("bad name"))).alias("v"))).toThrow(/^to_avro\(\): column "bad name" is not a valid Avro field name/);
    });
    expect(() => to_avro(struct("id"), { "schema.registry.url": "http://127.0.0.1:1" })).toThrow(
      /with schema.registry.url, give the subject to register under \(subject\) or the topic the values go to \(topic\)/,
    );
    expect(() => to_avro(struct("id"), { subject: "orders-value" })).toThrow(/set schema.registry.url too/);
    const shop = await parseProtoSchema(ORDER_PROTO);
    expect(() => to_protobuf(struct("id"), "shop.Missing", shop)).toThrow(AnalysisError);
  });

  it("to_protobuf checks the struct's columns against the message", () =>
    withSession(0, async (session) => {
      const shop = await parseProtoSchema(ORDER_PROTO);
      const df = session.createDataFrame(orders, Order);
      expect(() => df.select(to_protobuf(struct(col("item").alias("id")), "shop.Order", shop).alias("v"))).toThrow(/^to_protobuf\(\): column "id" is string/);
    }));
});
