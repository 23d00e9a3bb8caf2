import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { col, count, struct } from "../api/functions.js";
import { from_avro, from_protobuf, to_avro, to_protobuf } from "../api/value-functions.js";
import { parseProtoSchema } from "../formats/protobuf/proto-schema.js";
import { SchemaRegistryClient } from "../schema-registry/registry-client.js";
import { schemaRegistryUrl } from "../schema-registry/test-support.js";
import { readWireHeader } from "../schema-registry/wire-format.js";
import { withSession } from "../testing/fixtures.js";
import { createTopic, deleteTopic, kafkaBootstrap } from "../testing/kafka.js";
import { readTopic } from "../testing/kafka-log.js";

// Queries that write Avro and Protobuf to Kafka through the schema registry, as a Confluent consumer
// would read them: the subject the topic's naming strategy gives holds the schema, and each value
// carries its id. Sluice's own from_avro / from_protobuf read the topic back.

const topics: string[] = [];
afterAll(async () => {
  if (topics.length > 0) await deleteTopic(...topics);
});

async function newTopic(): Promise<string> {
  const topic = await createTopic("registry-sink", 1);
  topics.push(topic);
  return topic;
}

const registry = () => ({ "schema.registry.url": schemaRegistryUrl() });
const Click = z.object({ page: z.string(), user: z.int32() });
const Counts = z.object({ page: z.string().nullable(), n: z.int() });

describe("Avro and Protobuf values written to Kafka through the schema registry", () => {
  it("a windowless count per page goes out as Avro under <topic>-value, and reads back as the same rows", () =>
    withSession(2, async (session) => {
      const out = await newTopic();
      const clicks = session.memoryStream(Click);
      const query = clicks
        .toDF()
        .groupBy("page")
        .agg(count().alias("n"))
        .select(col("page").alias("key"), to_avro(struct("page", "n"), { ...registry(), topic: out }).alias("value"))
        .writeStream.outputMode("update")
        .format("kafka")
        .option("kafka.bootstrap.servers", kafkaBootstrap())
        .option("topic", out)
        .start();
      clicks.addData({ page: "/a", user: 1 }, { page: "/b", user: 2 }, { page: "/a", user: 3 });
      await query.processAllAvailable();
      clicks.addData({ page: "/b", user: 4 });
      await query.processAllAvailable();
      await query.stop();

      const latest = await new SchemaRegistryClient(registry()).latest(`${out}-value`);
      const records = (await readTopic(out, 1))[0]!;
      expect(records.map((r) => readWireHeader(r.value!, 0))).toEqual(records.map(() => expect.objectContaining({ schemaId: latest.id })));
      const back = await session
        .read.format("kafka")
        .option("kafka.bootstrap.servers", kafkaBootstrap())
        .option("subscribe", out)
        .load()
        .select(from_avro(col("value"), Counts, registry()), "offset")
        .orderBy("offset")
        .collect();
      expect(back).toEqual([
        { page: "/a", n: 2, offset: 0 },
        { page: "/b", n: 1, offset: 1 },
        { page: "/b", n: 2, offset: 2 },
      ]);
    }));

  it("a stateless query writes Protobuf with the id of the subject's latest version", () =>
    withSession(1, async (session) => {
      const out = await newTopic();
      const text = `syntax = "proto3";\npackage web;\nmessage Click {\n  string page = 1;\n  int32 user = 2;\n}\n`;
      const web = await parseProtoSchema(text);
      const id = await new SchemaRegistryClient(registry()).register(`${out}-value`, text, "PROTOBUF");
      const clicks = session.memoryStream(Click);
      const query = clicks
        .toDF()
        .select(to_protobuf(struct("page", "user"), "web.Click", web, { ...registry(), topic: out }).alias("value"))
        .writeStream.format("kafka")
        .option("kafka.bootstrap.servers", kafkaBootstrap())
        .option("topic", out)
        .start();
      clicks.addData({ page: "/a", user: 1 }, { page: "/b", user: 2 });
      await query.processAllAvailable();
      await query.stop();

      const records = (await readTopic(out, 1))[0]!;
      expect(records.map((r) => readWireHeader(r.value!, 0, { protobuf: true }))).toEqual(records.map(() => expect.objectContaining({ schemaId: id, messageIndexes: [0] })));
      const back = await session
        .read.format("kafka")
        .option("kafka.bootstrap.servers", kafkaBootstrap())
        .option("subscribe", out)
        .load()
        .select(from_protobuf(col("value"), Click, "web.Click", web, registry()))
        .collect();
      expect(back).toEqual([
        { page: "/a", user: 1 },
        { page: "/b", user: 2 },
      ]);
    }));
});
