import type { SourceRuntime } from "../source-runtime.js";
import { closeIdleClients } from "./idle-clients.js";
import { closeClusters } from "./kafka-cluster.js";
import { kafkaValuesOf, type KafkaSourceDesc } from "./kafka-desc.js";
import type { KafkaSplit } from "./kafka-split.js";
import { kafkaStaticSplits } from "./kafka-static-splits.js";
import { KafkaStreamSource } from "./kafka-stream-source.js";
import { readKafkaSplit } from "./read-kafka-split.js";
import { KafkaPartitionTail } from "./kafka-partition-tail.js";

export const kafkaRuntime: SourceRuntime<KafkaSourceDesc, KafkaSplit> = {
  splitKind: "kafka",
  openStream: (desc, ctx) => new KafkaStreamSource(desc.options, kafkaValuesOf(desc), ctx.sourceDir),
  staticSplits: (desc) => kafkaStaticSplits(desc.options, kafkaValuesOf(desc)),
  readSplit: (_desc, split, metrics) => readKafkaSplit(split, metrics),
  openTail: (_desc, split, metrics) => {
    const tail = new KafkaPartitionTail(split, metrics);
    return { next: (waitMs) => tail.next(waitMs), position: () => tail.offset, close: () => tail.close() };
  },
  describeSplit: (split) => `Kafka topic ${split.topic} partition ${split.partition} offsets [${split.startOffset}, ${split.endOffset}) from ${split.connection.bootstrapServers}`,
  // The shared clusters, and the clients real-time tasks keep idle between batches.
  closeConnections: async () => {
    await Promise.all([closeClusters(), closeIdleClients()]);
  },
};
