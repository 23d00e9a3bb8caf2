import protobufjs from "protobufjs";
import "protobufjs/ext/descriptor.js";
import { writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { Session } from "../../api/session.js";
import { messageNamed, type ProtoMessage } from "../../formats/protobuf/proto-descriptor.js";
import { parseProtoSchema } from "../../formats/protobuf/proto-schema.js";
import { encodeProtobufValues } from "../../formats/protobuf/protobuf-encode.js";
import { SchemaRegistryClient } from "../../schema-registry/registry-client.js";
import { schemaRegistryUrl, uniqueSubject } from "../../schema-registry/test-support.js";
import { fieldsFromZod } from "../../schema/zod-schema.js";
import { withSession } from "../../testing/fixtures.js";
import { createTopic, deleteTopic, kafkaBootstrap } from "../../testing/kafka.js";
import { kafkaValueStream } from "../../testing/kafka-value-stream.js";
import { encodeRows, framedWithId, produceValues, topicHolding } from "../../testing/produce-values.js";
import { checkNewAnswer, execute, expectFailure, testStream } from "../../testing/stream-test.js";
import { tempDir } from "../../testing/temp-dir.js";

// The Kafka source reading Protobuf values, against the real broker and the real schema registry: messages
// in the Confluent wire format with writer schemas from the registry, and plain messages of a schema given
// as a FileDescriptorSet file (Spark's descFilePath) or as .proto text.

const topics: string[] = [];
const files = tempDir("sluice-kafka-protobuf-");
afterAll(async () => {
  files.remove();
  if (topics.length) await deleteTopic(...topics);
});

const V1 = `syntax = "proto3";
package shop;
message Order {
  enum Status { STATUS_UNSPECIFIED = 0; NEW = 1; SHIPPED = 2; }
  int32 id = 1;
  string item = 2;
  Status status = 3;
  optional double price = 4;
}
`;
/** v2 adds a field, which a reader on v1 skips. */
const V2 = V1.replace("optional double price = 4;", "optional double price = 4;\n  string note = 5;");

const Order = z.object({ id: z.int32().nullable(), item: z.string().nullable(), status: z.string().nullable(), price: z.number().nullable() });
const OrderV2 = Order.extend({ note: z.string().nullable() });

let v1: ProtoMessage;
let v2: ProtoMessage;
beforeAll(async () => {
  v1 = messageNamed(await parseProtoSchema(V1), "shop.Order");
  v2 = messageNamed(await parseProtoSchema(V2), "shop.Order");
});

const protobuf = (message: ProtoMessage, schema: z.ZodObject<any>, rows: Record<string, unknown>[], schemaId?: number) =>
  encodeRows(rows, fieldsFromZod(schema), (batch) => encodeProtobufValues(batch, message, schemaId === undefined ? {} : { confluent: { schemaId } }));

const ORDERS = [
  { id: 1, item: "pen", status: "NEW", price: 2.5 },
  { id: 2, item: "ink", status: "SHIPPED", price: null },
];

const BAD_ID = 999_999_999;

const stream = <Z extends z.ZodObject<any>>(session: Session, topic: string, schema: Z, options: Record<string, string | number | boolean>) =>
  kafkaValueStream(session, topic, schema, { valueFormat: "protobuf", "protobuf.messageName": "shop.Order", ...options });

/** The reader's message as .proto text, writer schemas from the registry. */
const registryOptions = () => ({ "protobuf.schema": V1, "schema.registry.url": schemaRegistryUrl(), "schema.registry.maxRetries": 1, "schema.registry.retryBackoffMs": 200 });

const malformedCount = (expected: number) =>
  execute(`${expected} record(s) malformed`, (q) => expect(q.recentProgress.reduce((n, p) => n + Number(p.sources[0]!.metrics.numMalformedRecords ?? 0), 0)).toBe(expected));

describe("Kafka source, Protobuf values", () => {
  it("the Confluent wire format through the registry: v1 and v2 records read under the v1 message", () =>
    withSession(2, async (session) => {
      const topic = await createTopic("sluice-protobuf-registry", 1);
      topics.push(topic);
      const subject = uniqueSubject(`${topic}-value`);
      const registry = new SchemaRegistryClient({ "schema.registry.url": schemaRegistryUrl(), maxRetries: 1, retryBackoffMs: 200 });
      const id1 = await registry.register(subject, V1, "PROTOBUF");
      const id2 = await registry.register(subject, V2, "PROTOBUF");
      const df = stream(session, topic, Order, registryOptions()).select("id", "item", "status", "price", "offset");
      await testStream(df, "append").run(
        execute("produce v1 orders", () => produceValues(topic, protobuf(v1, Order, ORDERS, id1))),
        checkNewAnswer({ id: 1, item: "pen", status: "NEW", price: 2.5, offset: 0 }, { id: 2, item: "ink", status: "SHIPPED", price: null, offset: 1 }),
        execute("produce a v2 order", () => produceValues(topic, protobuf(v2, OrderV2, [{ id: 3, item: "pad", status: "NEW", price: 4, note: "gift" }], id2))),
        checkNewAnswer({ id: 3, item: "pad", status: "NEW", price: 4, offset: 2 }),
        malformedCount(0),
      );
    }));

  describe("a schema id the registry does not know", () => {
    async function topicWithUnknownId(base: string): Promise<{ topic: string; bad: Uint8Array }> {
      const id = await new SchemaRegistryClient({ "schema.registry.url": schemaRegistryUrl() }).register(uniqueSubject(`${base}-value`), V1, "PROTOBUF");
      const [first, second] = protobuf(v1, Order, ORDERS, id);
      // Message indexes [0], then id = 7.
      const bad = framedWithId(BAD_ID, [0x00, 0x08, 0x07]);
      return { topic: await topicHolding(base, [first!, bad, second!], topics), bad };
    }

    it("FAILFAST: the query fails naming the record, the id and the registry", () =>
      withSession(1, async (session) => {
        const { topic } = await topicWithUnknownId("sluice-protobuf-unknown-failfast");
        await testStream(stream(session, topic, Order, { ...registryOptions(), mode: "FAILFAST" }), "append").run(
          expectFailure(`Protobuf record does not match the schema at topic ${topic} partition 0 offset 1: schema id ${BAD_ID} is not in the schema registry at ${schemaRegistryUrl()}`),
        );
      }));

    it("PERMISSIVE: a row of nulls whose corrupt-record column holds the record's bytes", () =>
      withSession(0, async (session) => {
        const { topic, bad } = await topicWithUnknownId("sluice-protobuf-unknown-permissive");
        const WithCorrupt = z.object({ id: z.int32().nullable(), item: z.string().nullable(), _corrupt_record: z.instanceof(Uint8Array).nullable() });
        const df = stream(session, topic, WithCorrupt, registryOptions()).select("id", "item", "_corrupt_record");
        await testStream(df, "append").run(
          checkNewAnswer({ id: 1, item: "pen", _corrupt_record: null }, { id: null, item: null, _corrupt_record: bad }, { id: 2, item: "ink", _corrupt_record: null }),
          malformedCount(1),
        );
      }));

    it("DROPMALFORMED: the record is dropped and counted", () =>
      withSession(1, async (session) => {
        const { topic } = await topicWithUnknownId("sluice-protobuf-unknown-drop");
        const df = stream(session, topic, Order, { ...registryOptions(), mode: "DROPMALFORMED" }).select("id", "offset");
        await testStream(df, "append").run(checkNewAnswer({ id: 1, offset: 0 }, { id: 2, offset: 2 }), malformedCount(1));
      }));
  });

  it("plain messages of a FileDescriptorSet file, enums as their numbers (enums.as.ints)", () =>
    withSession(1, async (session) => {
      const topic = await createTopic("sluice-protobuf-descriptor", 1);
      topics.push(topic);
      const descriptorFile = files.path("orders.desc");
      writeFileSync(descriptorFile, descriptorSet(V1));
      await produceValues(topic, protobuf(v1, Order, ORDERS));
      const WithNumbers = Order.extend({ status: z.int32().nullable() });
      const df = stream(session, topic, WithNumbers, { "protobuf.descriptorFile": descriptorFile, "enums.as.ints": true }).select("id", "item", "status", "price");
      await testStream(df, "append").run(checkNewAnswer({ id: 1, item: "pen", status: 1, price: 2.5 }, { id: 2, item: "ink", status: 2, price: null }), malformedCount(0));
    }));

  it("plain messages of .proto text: proto3 fields left at their defaults are null, or their defaults with emit.default.values", () =>
    withSession(0, async (session) => {
      const topic = await createTopic("sluice-protobuf-text", 1);
      topics.push(topic);
      // Zero, the empty string and the first enum value are not written in proto3: they read as absent.
      await produceValues(topic, protobuf(v1, Order, [{ id: 0, item: "", status: "STATUS_UNSPECIFIED", price: 0 }, ...ORDERS]));
      const read = (options: Record<string, boolean>) =>
        session.read
          .format("kafka")
          .schema(Order)
          .option("kafka.bootstrap.servers", kafkaBootstrap())
          .option("subscribe", topic)
          .options({ valueFormat: "protobuf", "protobuf.messageName": "Order", "protobuf.schema": V1, ...options })
          .load()
          .select("id", "item", "status", "price")
          .collect();
      // price has presence (optional): its 0 was written, and reads as 0 either way.
      expect(await read({})).toEqual([{ id: null, item: null, status: null, price: 0 }, ...ORDERS]);
      expect(await read({ "emit.default.values": true })).toEqual([{ id: 0, item: "", status: "STATUS_UNSPECIFIED", price: 0 }, ...ORDERS]);
    }));
});

/** What `protoc --include_imports --descriptor_set_out` writes for `text`, made by protobufjs. */
function descriptorSet(text: string): Uint8Array {
  const root = protobufjs.parse(text, { keepCase: true }).root;
  root.resolveAll();
  const set = root.toDescriptor("proto3");
  return set.$type.encode(set).finish();
}
