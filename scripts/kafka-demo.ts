/**
 * Kafka quick start: creates a `sensors` topic on the bundled broker (scripts/kafka.sh start),
 * produces 200,000 JSON readings (and one malformed record), and runs a windowed query over it
 * that stops once the topic is drained.
 *
 *   bash scripts/kafka.sh start && npx tsx scripts/kafka-demo.ts
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { Kafka, logLevel } from "kafkajs";
import { z } from "zod";
// Sluice's public entry point: in an app, `from "sluice"`.
import { avg, col, count, Session, window } from "../src/index.js";

const BOOTSTRAP = process.env.KAFKA_BOOTSTRAP_SERVERS ?? "127.0.0.1:19092";
const TOPIC = "sensors";
const Reading = z.object({ sensor: z.string(), value: z.number(), time: z.iso.datetime() });

// The topic, with kafkajs's admin client (the bundled broker does not create topics on first use).
const admin = new Kafka({ brokers: [BOOTSTRAP], logLevel: logLevel.ERROR }).admin();
await admin.connect();
if (!(await admin.listTopics()).includes(TOPIC)) {
  await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: 4 }], waitForLeaders: true });
}
await admin.disconnect();

// The Kafka sink needs a checkpoint (it tells a restart which batches already reached Kafka).
const session = new Session({ workers: 2, checkpointLocation: mkdtempSync(path.join(tmpdir(), "sluice-kafka-demo-")) });

// Sample readings (and one malformed record), written with Sluice's own Kafka sink.
const start = Date.UTC(2026, 0, 1, 12);
const values = session.memoryStream(z.object({ value: z.string() }));
const reading = (i: number) =>
  i === 1234 ? '{"sensor": "broken", "value": ' : JSON.stringify({ sensor: `s${i % 5}`, value: (i % 1000) / 10, time: new Date(start + i * 2).toISOString() });
// Each addData call is one batch of the memory stream: 10 of 20,000 readings.
for (let b = 0; b < 10; b++) values.addData(...Array.from({ length: 20_000 }, (_, j) => ({ value: reading(b * 20_000 + j) })));
await values.toDF().writeStream.format("kafka").option("kafka.bootstrap.servers", BOOTSTRAP).option("topic", TOPIC).trigger({ availableNow: true }).start().awaitTermination();

session.streams.addListener({
  onQueryProgress: ({ progress: p }) =>
    console.log(`progress: batch ${p.batchId}, ${p.numInputRows} rows, lag ${p.sources[0]?.metrics.maxOffsetsBehindLatest ?? "-"}, malformed ${p.sources[0]?.metrics.numMalformedRecords}\n`),
});
const query = session.readStream
  .format("kafka")
  .schema(Reading)
  .option("kafka.bootstrap.servers", BOOTSTRAP)
  .option("subscribe", TOPIC)
  .option("startingOffsets", "earliest")
  .option("maxOffsetsPerTrigger", 50_000)
  .option("mode", "DROPMALFORMED")
  .load()
  .withWatermark("time", "5 seconds")
  .groupBy(window(col("time"), "10 seconds"), "sensor")
  .agg(count().alias("n"), avg(col("value")).alias("mean"))
  .writeStream.outputMode("update")
  .format("console")
  .option("numRows", 5)
  .trigger({ availableNow: true })
  .start();
try {
  await query.awaitTermination();
} finally {
  await session.stop();
}
