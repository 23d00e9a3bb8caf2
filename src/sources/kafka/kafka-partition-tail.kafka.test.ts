import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emptyMetrics } from "../../batch/task-metrics.js";
import { batchToRows } from "../../batch/rows.js";
import { createTopic, deleteTopic, kafkaBootstrap } from "../../testing/kafka.js";
import { connection, jsonRecordBatch, sendBatches } from "../../testing/kafka-load.js";
import { KafkaPartitionTail } from "./kafka-partition-tail.js";
import { OPEN_END, type KafkaSplit } from "./kafka-split.js";
import { keptValueBytes, takeValueBytes } from "./record-batch/value-bytes-pool.js";

const fields = [
  { name: "id", type: "int64", nullable: true },
  { name: "name", type: "string", nullable: true },
] as const;

let topic: string;

function split(): KafkaSplit {
  return {
    kind: "kafka",
    topic,
    partition: 0,
    startOffset: 0,
    endOffset: OPEN_END,
    connection: connection(kafkaBootstrap()),
    failOnDataLoss: true,
    includeHeaders: false,
    maxPartitionFetchBytes: 1024 * 1024,
    pollTimeoutMs: 10_000,
    values: { fields: [...fields], format: { kind: "json" }, mode: "PERMISSIVE", columnNameOfCorruptRecord: "_corrupt_record", deadLetterTopic: null, registry: null },
  };
}

const send = (from: number, end: number) => sendBatches(kafkaBootstrap(), topic, [{ partition: 0, batch: jsonRecordBatch(from, end, 1, (i) => JSON.stringify({ id: i, name: `n${i}` }))! }]);

/** What the tail returns, as rows of the record's fields and the offset. */
async function nextRows(tail: KafkaPartitionTail): Promise<unknown[]> {
  const batch = await tail.next(5_000);
  if (batch === null) return [];
  return batchToRows(batch).map((r) => ({ id: r["id"], name: r["name"], offset: r["offset"] }));
}

describe("KafkaPartitionTail: a real-time task's reader of one partition", () => {
  beforeAll(async () => {
    topic = await createTopic("partition-tail", 1);
  });
  afterAll(() => deleteTopic(topic));

  it("returns each fetch's records decoded, and gives the value buffer back to the thread's pool for the next fetch", async () => {
    const tail = new KafkaPartitionTail(split(), emptyMetrics(0));
    try {
      while (keptValueBytes().buffers > 0) takeValueBytes(1);
      await send(0, 3);
      expect(await nextRows(tail)).toEqual([
        { id: 0, name: "n0", offset: 0 },
        { id: 1, name: "n1", offset: 1 },
        { id: 2, name: "n2", offset: 2 },
      ]);
      const afterFirst = keptValueBytes();
      expect(afterFirst.buffers).toBe(1);
      await send(3, 5);
      expect(await nextRows(tail)).toEqual([
        { id: 3, name: "n3", offset: 3 },
        { id: 4, name: "n4", offset: 4 },
      ]);
      // The second fetch took the kept buffer and gave it back: no new one.
      expect(keptValueBytes()).toEqual(afterFirst);
      expect(tail.offset).toBe(5);
    } finally {
      await tail.close();
    }
  });
});
