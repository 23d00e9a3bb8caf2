import { readFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { Session } from "../../api/session.js";
import { encodeAvroValues } from "../../formats/avro/avro-encode.js";
import { SchemaRegistryClient } from "../../schema-registry/registry-client.js";
import { schemaRegistryUrl, uniqueSubject } from "../../schema-registry/test-support.js";
import { fieldsFromZod } from "../../schema/zod-schema.js";
import { withSession } from "../../testing/fixtures.js";
import { createTopic, deleteTopic, kafkaBootstrap } from "../../testing/kafka.js";
import { readTopic } from "../../testing/kafka-log.js";
import { kafkaValueStream } from "../../testing/kafka-value-stream.js";
import { encodeRows, framedWithId, produceValues, topicHolding } from "../../testing/produce-values.js";
import { checkNewAnswer, execute, expectFailure, testStream } from "../../testing/stream-test.js";
import { filesUnder, tempDir } from "../../testing/temp-dir.js";

// The Kafka source reading Avro values, against the real broker and the real schema registry: plain datums
// of one schema, and the Confluent wire format with writer schemas fetched from the registry by id (in the
// worker threads that decode), resolved against one reader schema.

const topics: string[] = [];
afterAll(async () => {
  if (topics.length) await deleteTopic(...topics);
});

const registry = () => new SchemaRegistryClient({ "schema.registry.url": schemaRegistryUrl(), maxRetries: 1, retryBackoffMs: 200 });

const record = (...fields: object[]) => JSON.stringify({ type: "record", name: "Order", namespace: "com.example", fields });
const ID = { name: "id", type: "int" };
const ITEM = { name: "item", type: "string" };
const QTY = { name: "qty", type: "int", default: 1 };
/** Three versions of one subject: v2 adds qty with a default, v3 removes item. */
const V1 = record(ID, ITEM);
const V2 = record(ID, ITEM, QTY);
const V3 = record(ID, QTY);
/** The reader schema: item's default stands in for the values v3 wrote without it, qty's for v1's. */
const READER = record(ID, { ...ITEM, default: "unknown" }, QTY);

const OrderV1 = z.object({ id: z.int32(), item: z.string() });
const OrderV2 = OrderV1.extend({ qty: z.int32() });
const OrderV3 = z.object({ id: z.int32(), qty: z.int32() });

/** Rows as Avro datums of the schema their columns describe (field order and types as V1 to V3), optionally behind a schema id. */
const avro = (schema: z.ZodObject<any>, rows: Record<string, unknown>[], schemaId?: number) =>
  encodeRows(rows, fieldsFromZod(schema), (batch) => encodeAvroValues(batch, schemaId === undefined ? {} : { schemaId }));

const BAD_ID = 999_999_999;

/** A stream of `topic` from its start as Avro values with the registry, read with `schema`. */
const avroStream = <Z extends z.ZodObject<any>>(session: Session, topic: string, schema: Z, options: Record<string, string | number> = {}) =>
  kafkaValueStream(session, topic, schema, {
    valueFormat: "avro",
    "schema.registry.url": schemaRegistryUrl(),
    "schema.registry.maxRetries": 1,
    "schema.registry.retryBackoffMs": 200,
    ...options,
  });

const malformedCount = (name: string, expected: number) =>
  execute(name, (q) => expect(q.recentProgress.reduce((n, p) => n + Number(p.sources[0]!.metrics.numMalformedRecords ?? 0), 0)).toBe(expected));

describe("Kafka source, Avro values", () => {
  it("plain Avro datums of avroSchema, without a registry", () =>
    withSession(1, async (session) => {
      const topic = await createTopic("sluice-avro-plain", 1);
      topics.push(topic);
      const df = session.readStream
        .format("kafka")
        .schema(OrderV1)
        .option("kafka.bootstrap.servers", kafkaBootstrap())
        .option("subscribe", topic)
        .option("startingOffsets", "earliest")
        .option("valueFormat", "avro")
        .option("avroSchema", V1)
        .load()
        .select("id", "item", "offset");
      await testStream(df, "append").run(
        execute("produce two orders", () => produceValues(topic, avro(OrderV1, [{ id: 1, item: "pen" }, { id: 2, item: "ink" }]))),
        checkNewAnswer({ id: 1, item: "pen", offset: 0 }, { id: 2, item: "ink", offset: 1 }),
        execute("produce a null value and a third order", () => produceValues(topic, [null, ...avro(OrderV1, [{ id: 3, item: "pad" }])])),
        // A null value is a row of nulls, as from_avro(null), and not malformed.
        checkNewAnswer({ id: null, item: null, offset: 2 }, { id: 3, item: "pad", offset: 3 }),
        malformedCount("no record was malformed", 0),
      );
    }));

  it("the Confluent wire format: v1 records, then v2 (a field added with a default), then v3 (a field removed), in one topic, read under one reader schema", () =>
    withSession(2, async (session) => {
      const topic = await createTopic("sluice-avro-evolution", 1);
      topics.push(topic);
      const subject = uniqueSubject(`${topic}-value`);
      const c = registry();
      const [v1, v2, v3] = [await c.register(subject, V1), await c.register(subject, V2), await c.register(subject, V3)];
      expect(new Set([v1, v2, v3]).size).toBe(3);

      const df = avroStream(session, topic, OrderV2, { avroSchema: READER }).select("id", "item", "qty");
      await testStream(df, "append").run(
        execute("produce v1 orders", () => produceValues(topic, avro(OrderV1, [{ id: 1, item: "pen" }, { id: 2, item: "ink" }], v1))),
        checkNewAnswer({ id: 1, item: "pen", qty: 1 }, { id: 2, item: "ink", qty: 1 }),
        execute("produce v2 orders", () => produceValues(topic, avro(OrderV2, [{ id: 3, item: "pad", qty: 5 }, { id: 4, item: "cap", qty: 2 }], v2))),
        checkNewAnswer({ id: 3, item: "pad", qty: 5 }, { id: 4, item: "cap", qty: 2 }),
        execute("produce v3 orders and a v1 one", () =>
          produceValues(topic, [...avro(OrderV3, [{ id: 5, qty: 7 }, { id: 6, qty: 9 }], v3), ...avro(OrderV1, [{ id: 7, item: "nib" }], v1)]),
        ),
        checkNewAnswer({ id: 5, item: "unknown", qty: 7 }, { id: 6, item: "unknown", qty: 9 }, { id: 7, item: "nib", qty: 1 }),
        malformedCount("no record was malformed", 0),
      );

      // Without avroSchema the columns are the reader schema: nullable columns the writer lacks read as null.
      const loose = z.object({ id: z.int32(), item: z.string().nullable(), qty: z.int32().nullable() });
      const rows = await session.read
        .format("kafka")
        .schema(loose)
        .option("kafka.bootstrap.servers", kafkaBootstrap())
        .option("subscribe", topic)
        .option("valueFormat", "avro")
        .option("schema.registry.url", schemaRegistryUrl())
        .load()
        .select("id", "item", "qty")
        .orderBy("id")
        .collect();
      expect(rows).toEqual([
        { id: 1, item: "pen", qty: null },
        { id: 2, item: "ink", qty: null },
        { id: 3, item: "pad", qty: 5 },
        { id: 4, item: "cap", qty: 2 },
        { id: 5, item: null, qty: 7 },
        { id: 6, item: null, qty: 9 },
        { id: 7, item: "nib", qty: null },
      ]);
    }));

  describe("a schema id the registry does not know", () => {
    /** Offsets 0 and 2 are v1 orders; offset 1 names a schema id the registry never gave. */
    async function topicWithUnknownId(base: string): Promise<{ topic: string; bad: Uint8Array }> {
      const id = await registry().register(uniqueSubject(`${base}-value`), V1);
      const [first, second] = avro(OrderV1, [{ id: 1, item: "pen" }, { id: 2, item: "ink" }], id);
      const bad = framedWithId(BAD_ID, [0x02, 0x02, 0x78]);
      return { topic: await topicHolding(base, [first!, bad, second!], topics), bad };
    }

    it("FAILFAST: the query fails naming the record, the id and the registry (without the password in its URL)", () =>
      withSession(1, async (session) => {
        const { topic } = await topicWithUnknownId("sluice-avro-unknown-failfast");
        const url = new URL(schemaRegistryUrl());
        url.username = "reader";
        url.password = "url-secret";
        const df = avroStream(session, topic, OrderV1, { mode: "FAILFAST", "schema.registry.url": url.href });
        await testStream(df, "append").run(
          expectFailure(`malformed Avro at topic ${topic} partition 0 offset 1: schema id ${BAD_ID} is not in the schema registry at ${schemaRegistryUrl()}`),
        );
      }));

    it("DROPMALFORMED: the record is dropped and counted in progress", () =>
      withSession(0, async (session) => {
        const { topic } = await topicWithUnknownId("sluice-avro-unknown-drop");
        const df = avroStream(session, topic, OrderV1, { mode: "DROPMALFORMED" }).select("id", "item", "offset");
        await testStream(df, "append").run(checkNewAnswer({ id: 1, item: "pen", offset: 0 }, { id: 2, item: "ink", offset: 2 }), malformedCount("one record was malformed", 1));
      }));

    it("PERMISSIVE (the default): the record is a row of nulls, counted in progress", () =>
      withSession(2, async (session) => {
        const { topic } = await topicWithUnknownId("sluice-avro-unknown-permissive");
        const df = avroStream(session, topic, OrderV1).select("id", "item", "offset");
        await testStream(df, "append").run(
          checkNewAnswer({ id: 1, item: "pen", offset: 0 }, { id: null, item: null, offset: 1 }, { id: 2, item: "ink", offset: 2 }),
          malformedCount("one record was malformed", 1),
        );
      }));

    it("a dead-letter topic receives the record's exact bytes, and where it came from", () =>
      withSession(1, async (session) => {
        const { topic, bad } = await topicWithUnknownId("sluice-avro-unknown-dlq");
        const dlq = await createTopic("sluice-avro-dlq", 1);
        topics.push(dlq);
        const df = avroStream(session, topic, OrderV1, { mode: "DROPMALFORMED", deadLetterTopic: dlq }).select("id", "item");
        await testStream(df, "append").run(checkNewAnswer({ id: 1, item: "pen" }, { id: 2, item: "ink" }), malformedCount("one record was malformed", 1));
        const [letters] = await readTopic(dlq, 1);
        expect(letters!.map((r) => [r.key, r.value, r.headers])).toEqual([
          [
            null,
            bad,
            [
              ["sluice.source.topic", new TextEncoder().encode(topic)],
              ["sluice.source.partition", new TextEncoder().encode("0")],
              ["sluice.source.offset", new TextEncoder().encode("1")],
            ],
          ],
        ]);
      }));
  });

  it("the registry's credentials reach no progress, plan or checkpoint file", () =>
    withSession(1, async (session) => {
      const topic = await createTopic("sluice-avro-secret", 1);
      topics.push(topic);
      const id = await registry().register(uniqueSubject(`${topic}-value`), V1);
      await produceValues(topic, avro(OrderV1, [{ id: 1, item: "pen" }], id));
      const checkpoint = tempDir("sluice-avro-secret-");
      try {
        // The test registry does not check credentials; it is sent them all the same.
        const q = avroStream(session, topic, OrderV1, { "basic.auth.user.info": "reader:registry-secret" })
          .select("id", "item")
          .writeStream.format("memory")
          .queryName("avro_secret")
          .option("checkpointLocation", checkpoint.dir)
          .trigger({ availableNow: true })
          .start();
        await q.awaitTermination();
        expect(await session.table("avro_secret").collect()).toEqual([{ id: 1, item: "pen" }]);
        const shown = [JSON.stringify(q.recentProgress), q.explain(), ...filesUnder(checkpoint.dir).map((f) => readFileSync(f, "latin1"))];
        const secrets = ["registry-secret", Buffer.from("reader:registry-secret").toString("base64")];
        for (const secret of secrets) for (const text of shown) expect(text).not.toContain(secret);
      } finally {
        checkpoint.remove();
      }
    }));
});
