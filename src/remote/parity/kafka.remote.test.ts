// Kafka -> Kafka, run embedded and on Spark: both queries read the same input topic (JSON values), transform it
// and write JSON values to an output topic of their own; after each step both output topics hold the same
// records (compared as sorted key/value texts, read back byte by byte from the broker), which are the ones
// stated here. The Spark server runs on this machine and reaches the broker at the same address.
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { DataFrame } from "../../api/data-frame.js";
import { avg, col, count, from_json, struct, sum, to_json, window } from "../../api/functions.js";
import { Session } from "../../api/session.js";
import type { StreamingQuery } from "../../runtime/streaming-query.js";
import { createTopic, deleteTopic, kafkaBootstrap, kafkaClient } from "../../testing/kafka.js";
import { asText, readTopic } from "../../testing/kafka-log.js";
import { produceValues } from "../../testing/produce-values.js";
import { remoteSession } from "../../testing/spark-connect.js";
import { tempDirs } from "../../testing/temp-dirs.js";

const topics: string[] = [];
afterAll(async () => {
  if (topics.length) await deleteTopic(...topics);
});
const folder = tempDirs("sluice-parity-kafka-");

const Reading = z.object({ sensor: z.string(), value: z.int(), time: z.iso.datetime() });
const reading = (sensor: string, value: number, second: number) => JSON.stringify({ sensor, value, time: new Date(second * 1000).toISOString() });
const utf8 = new TextEncoder();

async function newTopic(base: string): Promise<string> {
  const topic = await createTopic(base, 1);
  topics.push(topic);
  return topic;
}

/** The input topic from its start. */
const inputTopic = (session: Session, topic: string) =>
  session.readStream.format("kafka").option("kafka.bootstrap.servers", kafkaBootstrap()).option("subscribe", topic).option("startingOffsets", "earliest");

/** The output topic's records as sorted "key value" texts. */
async function records(topic: string): Promise<string[]> {
  const [partition] = await readTopic(topic, 1);
  return partition!.map((r) => `${asText(r.key)} ${asText(r.value)}`).sort();
}

/**
 * Runs `transform` over the input topic embedded and remotely, each writing its own output topic; after each
 * step (values produced to the input topic) both topics must hold the step's records.
 */
async function kafkaToKafka(
  name: string,
  outputMode: "append" | "update",
  transform: (session: Session, input: string) => DataFrame<any>,
  steps: { produce: string[]; records: string[] }[],
): Promise<void> {
  const input = await newTopic(`parity-${name}-in`);
  const sessions = { embedded: new Session({ workers: 0 }), remote: remoteSession() };
  const queries: StreamingQuery[] = [];
  try {
    const outputs = { embedded: await newTopic(`parity-${name}-embedded`), remote: await newTopic(`parity-${name}-remote`) };
    for (const backend of ["embedded", "remote"] as const) {
      queries.push(
        transform(sessions[backend], input)
          .writeStream.format("kafka")
          .outputMode(outputMode)
          .queryName(`${name}_${backend}`)
          .option("kafka.bootstrap.servers", kafkaBootstrap())
          .option("topic", outputs[backend])
          .option("checkpointLocation", folder().path("checkpoint"))
          .start(),
      );
    }
    for (const [i, step] of steps.entries()) {
      await produceValues(input, step.produce.map((v) => utf8.encode(v)));
      await Promise.all(queries.map((q) => q.processAllAvailable()));
      const embedded = await records(outputs.embedded);
      const remote = await records(outputs.remote);
      expect(remote, `step ${i}: Spark's output topic differs from the embedded engine's`).toEqual(embedded);
      expect(embedded, `step ${i}`).toEqual([...step.records].sort());
    }
  } finally {
    await Promise.all(queries.map((q) => q.stop()));
    await Promise.all([sessions.embedded.stop(), sessions.remote.stop()]);
  }
}

describe("Kafka -> Kafka, embedded and on Spark", () => {
  it("from_json over the raw value, a filter, to_json(struct(...)) as the value and a key (append mode)", () =>
    kafkaToKafka(
      "filter",
      "append",
      (session, topic) =>
        inputTopic(session, topic)
          .load()
          .select(from_json(col("value"), Reading), col("offset"))
          .filter(col("value").gt(2))
          .select(col("sensor").alias("key"), to_json(struct(col("sensor"), col("value"), col("time"), col("offset"))).alias("value")),
      [
        {
          produce: [reading("s1", 5, 1), reading("s2", 1, 2), reading("s1", 3, 3)],
          records: ['s1 {"sensor":"s1","value":5,"time":"1970-01-01T00:00:01.000Z","offset":0}', 's1 {"sensor":"s1","value":3,"time":"1970-01-01T00:00:03.000Z","offset":2}'],
        },
        {
          produce: [reading("s2", 9, 4), "not json"],
          records: [
            's1 {"sensor":"s1","value":5,"time":"1970-01-01T00:00:01.000Z","offset":0}',
            's1 {"sensor":"s1","value":3,"time":"1970-01-01T00:00:03.000Z","offset":2}',
            's2 {"sensor":"s2","value":9,"time":"1970-01-01T00:00:04.000Z","offset":3}',
          ],
        },
      ],
    ), 90_000);

  it("values decoded by the source's schema, a windowed aggregation with a watermark (update mode)", () =>
    kafkaToKafka(
      "windows",
      "update",
      (session, topic) =>
        inputTopic(session, topic)
          .schema(Reading)
          .load()
          .withWatermark("time", "10 seconds")
          .groupBy(window(col("time"), "10 seconds"), col("sensor"))
          .agg(count().alias("n"), sum(col("value")).alias("total"), avg(col("value")).alias("mean"))
          .select(col("sensor").alias("key"), to_json(struct(col("window"), col("n"), col("total"), col("mean"))).alias("value")),
      [
        {
          produce: [reading("s1", 2, 1), reading("s1", 4, 2), reading("s2", 7, 12)],
          records: [
            's1 {"window":{"start":"1970-01-01T00:00:00.000Z","end":"1970-01-01T00:00:10.000Z"},"n":2,"total":6,"mean":3.0}',
            's2 {"window":{"start":"1970-01-01T00:00:10.000Z","end":"1970-01-01T00:00:20.000Z"},"n":1,"total":7,"mean":7.0}',
          ],
        },
        {
          // Watermark 2 s: s1 at 5 s still counts; the mean is no longer whole.
          produce: [reading("s1", 1, 5)],
          records: [
            's1 {"window":{"start":"1970-01-01T00:00:00.000Z","end":"1970-01-01T00:00:10.000Z"},"n":2,"total":6,"mean":3.0}',
            's2 {"window":{"start":"1970-01-01T00:00:10.000Z","end":"1970-01-01T00:00:20.000Z"},"n":1,"total":7,"mean":7.0}',
            's1 {"window":{"start":"1970-01-01T00:00:00.000Z","end":"1970-01-01T00:00:10.000Z"},"n":3,"total":7,"mean":2.3333333333333335}',
          ],
        },
      ],
    ), 90_000);

  it("maxOffsetsPerTrigger over uneven partitions: the same batches, as progress reports them", async () => {
    const input = await createTopic("parity-rate-limit", 3);
    topics.push(input);
    // 13, 5 and 2 records in partitions 0, 1 and 2.
    const producer = kafkaClient().producer({ idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    try {
      const counts = [13, 5, 2];
      await producer.send({
        topic: input,
        messages: counts.flatMap((n, partition) => Array.from({ length: n }, (_, i) => ({ partition, value: `p${partition}-${i}` }))),
      });
    } finally {
      await producer.disconnect();
    }
    const batches: Record<string, number[]> = {};
    for (const [backend, session] of [["embedded", new Session({ workers: 0 })], ["remote", remoteSession()]] as const) {
      try {
        const query = inputTopic(session, input)
          .option("maxOffsetsPerTrigger", 7)
          .load()
          .select(col("partition"), col("offset"))
          .writeStream.format("memory")
          .queryName(`rate_limit_${backend}`)
          .option("checkpointLocation", folder().path("checkpoint"))
          .start();
        try {
          await query.processAllAvailable();
          expect(await session.table(`rate_limit_${backend}`).count()).toBe(20);
          const sizes = () => query.recentProgress.map((p) => p.numInputRows).filter((n) => n > 0);
          await expect.poll(() => sizes().reduce((a, b) => a + b, 0), { timeout: 20_000 }).toBe(20);
          batches[backend] = sizes();
        } finally {
          await query.stop();
        }
      } finally {
        await session.stop();
      }
    }
    expect(batches["remote"]).toEqual(batches["embedded"]);
    // Spark's rate limit shares the 7 offsets among partitions by what each has left (rounded down, and up below
    // 1): 4 + 1 + 1 of 13, 5 and 2; then 4 + 2 + 1 of 9, 4 and 1; then the last 7.
    expect(batches["embedded"]).toEqual([6, 7, 7]);
  }, 90_000);
});
