import { rmSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { col } from "../api/functions.js";
import { withSession } from "../testing/fixtures.js";
import { createTopic, kafkaBootstrap } from "../testing/kafka.js";
import { produceJson } from "../testing/kafka-load.js";
import { tempDir } from "../testing/temp-dir.js";

describe("a checkpoint whose commits/ was deleted, over Kafka", () => {
  const temp = tempDir("sluice-deleted-logs-");
  afterEach(() => temp.remove());

  it("re-runs only the last planned batch with its logged offsets, even when the restart asks for smaller batches, and skips no record", () =>
    withSession(2, async (session) => {
      const topic = await createTopic("deleted-commits", 2);
      await produceJson(kafkaBootstrap(), topic, 2, 3_000, (i) => JSON.stringify({ n: i }));
      const checkpoint = temp.path("checkpoint");
      const seen = new Map<number, number[]>();
      const start = (maxOffsetsPerTrigger: number) =>
        session.readStream
          .format("kafka")
          .option("kafka.bootstrap.servers", kafkaBootstrap())
          .option("subscribe", topic)
          .option("startingOffsets", "earliest")
          .option("maxOffsetsPerTrigger", maxOffsetsPerTrigger)
          .load()
          .select(col("value").cast("string").alias("value"))
          .writeStream.foreachBatch(async (df, batchId) => {
            seen.set(batchId, (await df.collect()).map((r) => (JSON.parse(r.value!) as { n: number }).n));
          })
          .option("checkpointLocation", checkpoint)
          .trigger({ availableNow: true })
          .start();
      const first = start(1_000);
      await first.awaitTermination();
      expect([...seen.keys()]).toEqual([0, 1, 2]);
      rmSync(`${checkpoint}/commits`, { recursive: true });
      seen.clear();
      // offsets/2 proves batches 0 and 1 finished: only batch 2 runs again, with its logged 1,000 offsets.
      const second = start(500);
      await second.awaitTermination();
      expect([...seen.keys()]).toEqual([2]);
      expect(seen.get(2)!.length).toBe(1_000);
      expect(second.recentProgress.map((p) => [p.batchId, p.numInputRows])).toEqual([[2, 1_000]]);
      expect(second.lastProgress!.sources[0]!.endOffset).toEqual({ [topic]: { "0": 1_500, "1": 1_500 } });
    }));
});
