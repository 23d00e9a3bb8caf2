/**
 * Kafka quick start: creates a `sensors` topic on the bundled broker (scripts/kafka.sh start),
 * produces 200,000 JSON readings (and one malformed record), and runs a windowed query over it
 * that stops once the topic is drained.
 *
 *   bash scripts/kafka.sh start && npx tsx scripts/kafka-demo.ts
 */
import { Kafka, logLevel } from "kafkajs";
import { z } from "zod";
import { avg, col, count, Session, window } from "../src/index.js";
import { closeClusters } from "../src/sources/kafka/kafka-cluster.js";
import { produceJson } from "../src/testing/kafka-load.js";

const BOOTSTRAP = process.env.KAFKA_BOOTSTRAP_SERVERS ?? "127.0.0.1:19092";
const TOPIC = "sensors";
const Reading = z.object({ sensor: z.string(), value: z.number(), time: z.iso.datetime() });

const admin = new Kafka({ brokers: [BOOTSTRAP], logLevel: logLevel.ERROR }).admin();
await admin.connect();
if (!(await admin.listTopics()).includes(TOPIC)) {
  await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: 4 }], waitForLeaders: true });
}
const start = Date.UTC(2026, 0, 1, 12);
await produceJson(BOOTSTRAP, TOPIC, 4, 200_000, (i) =>
  i === 1234 ? '{"sensor": "broken", "value": ' : `{"sensor":"s${i % 5}","value":${(i % 1000) / 10},"time":"${new Date(start + i * 2).toISOString()}"}`,
);
await admin.disconnect();

const session = new Session({ workers: 2 });
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
  await closeClusters();
}
