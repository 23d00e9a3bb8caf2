import { afterAll, describe, expect, it } from "vitest";
import { col } from "../../api/functions.js";
import type { Session } from "../../api/session.js";
import { withSession } from "../../testing/fixtures.js";
import { createTopic, deleteTopic, kafkaBootstrap, kafkaClient } from "../../testing/kafka.js";

// A latencyTarget trigger caps each Kafka batch at the rows its sizer chose (Spark's ReadLimit),
// shared among partitions by backlog as maxOffsetsPerTrigger is; the smaller of the two caps wins.

const topics: string[] = [];
afterAll(async () => {
  if (topics.length) await deleteTopic(...topics);
});

/** A 4-partition topic holding `perPartition` records in each partition. */
async function topicOf(perPartition: number): Promise<string> {
  const topic = await createTopic("sluice-sized", 4);
  topics.push(topic);
  const producer = kafkaClient().producer();
  await producer.connect();
  for (let p = 0; p < 4; p++) {
    await producer.send({ topic, messages: Array.from({ length: perPartition }, (_, i) => ({ partition: p, value: String(p * perPartition + i) })) });
  }
  await producer.disconnect();
  return topic;
}

const fromEarliest = (session: Session, topic: string) =>
  session.readStream.format("kafka").option("kafka.bootstrap.servers", kafkaBootstrap()).option("subscribe", topic).option("startingOffsets", "earliest");

describe("Kafka source under trigger({ latencyTarget })", () => {
  it("reads the 10,000-offset probe first (2,500 per partition), then sized batches, every record once", () =>
    withSession(2, async (session) => {
      const topic = await topicOf(10_000);
      const q = fromEarliest(session, topic)
        .load()
        .select(col("value").cast("string").alias("value"))
        .writeStream.format("memory")
        .queryName("sized_kafka")
        .trigger({ latencyTarget: "500 ms" })
        .start();
      await q.processAllAvailable();
      const batches = q.recentProgress.filter((p) => p.numInputRows > 0);
      expect(batches[0]!.numInputRows).toBe(10_000);
      expect(batches[0]!.sources[0]!.endOffset).toEqual({ [topic]: { "0": 2_500, "1": 2_500, "2": 2_500, "3": 2_500 } });
      expect(batches[0]!.batchSizing).toMatchObject({ latencyTargetMs: 500, maxRowsPerBatch: 10_000, mode: "probing" });
      // Each batch stays within the cap it was given.
      for (const p of batches) expect(p.numInputRows).toBeLessThanOrEqual(p.batchSizing!.maxRowsPerBatch);
      expect(batches.reduce((n, p) => n + p.numInputRows, 0)).toBe(40_000);
      const values = (await session.table("sized_kafka").collect()).map((r) => Number(r.value));
      expect(values.sort((a, b) => a - b)).toEqual(Array.from({ length: 40_000 }, (_, i) => i));
      await q.stop();
    }));

  it("keeps maxOffsetsPerTrigger as the upper bound when it is the smaller cap", () =>
    withSession(2, async (session) => {
      const topic = await topicOf(2_000);
      const q = fromEarliest(session, topic)
        .option("maxOffsetsPerTrigger", 4_000)
        .load()
        .writeStream.format("memory")
        .queryName("sized_and_capped")
        .trigger({ latencyTarget: "10 seconds" })
        .start();
      await q.processAllAvailable();
      const batches = q.recentProgress.filter((p) => p.numInputRows > 0);
      // The probe allows 10,000 rows; maxOffsetsPerTrigger keeps the batch to 4,000 (1,000 per partition).
      expect(batches[0]!.numInputRows).toBe(4_000);
      expect(batches[0]!.batchSizing!.maxRowsPerBatch).toBe(10_000);
      // Later batches take the smaller of the two caps (the first batch also paid for the workers' start, so the sizer may cap lower).
      for (const p of batches) expect(p.numInputRows).toBeLessThanOrEqual(Math.min(4_000, p.batchSizing!.maxRowsPerBatch));
      expect(batches.reduce((n, p) => n + p.numInputRows, 0)).toBe(8_000);
      await q.stop();
    }));
});
