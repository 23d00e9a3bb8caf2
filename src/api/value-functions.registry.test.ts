import { describe, expect, it } from "vitest";
import { z } from "zod";
import { confluent, str } from "../formats/avro/test-support.js";
import { parseProtoSchema } from "../formats/protobuf/proto-schema.js";
import { SchemaRegistryClient } from "../schema-registry/registry-client.js";
import { schemaRegistryUrl, uniqueSubject } from "../schema-registry/test-support.js";
import { readWireHeader } from "../schema-registry/wire-format.js";
import { WORKER_COUNTS, withSession } from "../testing/fixtures.js";
import { addData, checkAnswer, testStream } from "../testing/stream-test.js";
import { col, count, struct } from "./functions.js";
import { from_avro, from_protobuf, to_avro, to_protobuf } from "./value-functions.js";

// from_avro / to_avro and from_protobuf / to_protobuf with the Confluent wire format, against the real
// registry the kafka project starts. Registry ids are compared with what the registry answers, never
// with numbers (Apicurio's do not start at 1).

const registry = () => ({ "schema.registry.url": schemaRegistryUrl(), "schema.registry.maxRetries": 1, "schema.registry.retryBackoffMs": 200 });
const client = () => new SchemaRegistryClient({ "schema.registry.url": schemaRegistryUrl() });
const Raw = z.object({ value: z.instanceof(Uint8Array).nullable() });

const Order = z.object({ id: z.int32(), item: z.string().nullable() });
const orders = [
  { id: 1, item: "a" },
  { id: 2, item: null },
];

const avroRecord = (...fields: object[]) => JSON.stringify({ type: "record", name: "Order", namespace: "shop", fields });
const V1 = avroRecord({ name: "id", type: "int" });
const V2 = avroRecord({ name: "id", type: "int" }, { name: "status", type: "string", default: "new" });
const V3 = avroRecord({ name: "status", type: "string", default: "new" });
/** The reader: every field any version had, with the defaults that make the versions readable. */
const READER = avroRecord({ name: "id", type: ["null", "int"], default: null }, { name: "status", type: "string", default: "new" });
const Reader = z.object({ id: z.int32().nullable(), status: z.string() });

describe.each(WORKER_COUNTS)("Avro and Protobuf through the schema registry with %i workers", (workers) => {
  it("to_avro registers the columns' schema under the subject, and from_avro reads the values back by its id", () =>
    withSession(workers, async (session) => {
      const subject = uniqueSubject("orders-value");
      const encoded = await session
        .createDataFrame(orders, Order)
        .select(to_avro(struct("id", "item"), { ...registry(), subject, recordName: "Order", recordNamespace: "shop" }).alias("value"))
        .collect();
      const latest = await client().latest(subject);
      expect(JSON.parse(latest.schema)).toEqual({
        type: "record",
        name: "Order",
        namespace: "shop",
        fields: [
          { name: "id", type: "int" },
          { name: "item", type: ["null", "string"], default: null },
        ],
      });
      for (const r of encoded) expect(readWireHeader(r.value!, 0)).toEqual(expect.objectContaining({ schemaId: latest.id }));
      const back = await session.createDataFrame(encoded, Raw).select(from_avro(col("value"), Order, registry())).collect();
      expect(back).toEqual(orders);
    }));

  it("from_avro resolves each value's writer schema to one reader schema: a field added with a default, then one removed", () =>
    withSession(workers, async (session) => {
      const subject = uniqueSubject("orders-value");
      const registry1 = await client().register(subject, V1);
      const registry2 = await client().register(subject, V2);
      const registry3 = await client().register(subject, V3);
      // As each version's writer would have written them: id 1 (zigzag 02); id 2 and "paid"; "sent" alone.
      const values = [confluent(registry1, Uint8Array.of(0x02)), confluent(registry2, Uint8Array.of(0x04, ...str("paid"))), confluent(registry3, str("sent"))];
      const rows = await session
        .createDataFrame(values.map((value) => ({ value })), Raw)
        .select(from_avro(col("value"), Reader, { ...registry(), avroSchema: READER }))
        .collect();
      expect(rows).toEqual([
        { id: 1, status: "new" },
        { id: 2, status: "paid" },
        { id: null, status: "sent" },
      ]);
    }));

  it("a schema id the registry does not have: FAILFAST names it, PERMISSIVE gives a row of nulls", () =>
    withSession(workers, async (session) => {
      const unknown = Uint8Array.of(0, 0x7f, 0xff, 0xff, 0xf0, 0x02);
      const df = session.createDataFrame([{ value: unknown }], Raw);
      await expect(df.select(from_avro(col("value"), Order, registry())).collect()).rejects.toThrow(
        /malformed Avro at row 0 of the batch: schema id 2147483632 is not in the schema registry at http:\/\/127.0.0.1/,
      );
      expect(await df.select(from_avro(col("value"), Order, { ...registry(), mode: "PERMISSIVE" })).collect()).toEqual([{ id: null, item: null }]);
    }));

  it("to_protobuf registers the .proto text and from_protobuf reads the values back, framed with the message's indexes", () =>
    withSession(workers, async (session) => {
      const text = `syntax = "proto3";\npackage shop;\nmessage Note { string text = 1; }\nmessage Order {\n  int32 id = 1;\n  optional string item = 2;\n}\n`;
      const shop = await parseProtoSchema(text);
      const subject = uniqueSubject("orders-value");
      const encoded = await session
        .createDataFrame(orders, Order)
        .select(to_protobuf(struct("id", "item"), "shop.Order", shop, { ...registry(), subject, protoSchema: text }).alias("value"))
        .collect();
      const latest = await client().latest(subject);
      expect(latest.schemaType).toBe("PROTOBUF");
      expect(readWireHeader(encoded[0]!.value!, 0, { protobuf: true })).toEqual(expect.objectContaining({ schemaId: latest.id, messageIndexes: [1] }));
      const back = await session.createDataFrame(encoded, Raw).select(from_protobuf(col("value"), Order, "shop.Order", shop, registry())).collect();
      expect(back).toEqual(orders);
    }));
});

describe("the schema registry in streaming queries", () => {
  it("to_avro after an aggregation writes with the id registered when the query started", () =>
    withSession(2, async (session) => {
      const subject = uniqueSubject("counts-value");
      const stream = session.memoryStream(Order);
      const counts = stream
        .toDF()
        .groupBy("item")
        .agg(count().alias("n"))
        .select(to_avro(struct("item", "n"), { ...registry(), topic: subject.replace(/-value$/, "") }).alias("value"));
      let id = -1;
      await testStream(counts, "complete").run(
        addData(stream, { id: 1, item: "a" }, { id: 2, item: "a" }),
        // item "a" (union branch 1), then n = 2 as a zigzag long.
        checkAnswer({ value: Uint8Array.of(0, ...idBytes(await registeredIdOf(subject, (v) => (id = v))), 0x02, 0x02, 0x61, 0x04) }),
      );
      expect(id).toBeGreaterThanOrEqual(0);
    }));

  it("from_avro with a registry after an aggregation is refused when the query starts, with the fix", () =>
    withSession(0, async (session) => {
      const stream = session.memoryStream(Raw);
      const late = stream.toDF().groupBy("value").count().select(from_avro(col("value"), Order, registry()));
      expect(() => late.writeStream.outputMode("complete").format("memory").queryName("late_avro").start()).toThrow(
        /^from_avro\(\) with a schema registry must come before the query's first stateful operator .* decode the values first, then aggregate$/,
      );
    }));
});

/** Registers the schema the counts query writes (what to_avro registers at start) to learn its id for the expected bytes. */
async function registeredIdOf(subject: string, keep: (id: number) => void): Promise<number> {
  const schema = JSON.stringify({
    type: "record",
    name: "topLevelRecord",
    fields: [
      { name: "item", type: ["null", "string"], default: null },
      { name: "n", type: "long" },
    ],
  });
  const id = await client().register(subject, schema);
  keep(id);
  return id;
}

function idBytes(id: number): number[] {
  return [(id >>> 24) & 0xff, (id >>> 16) & 0xff, (id >>> 8) & 0xff, id & 0xff];
}
