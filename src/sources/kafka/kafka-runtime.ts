import type { SourceRuntime } from "../source-runtime.js";
import { closeClusters } from "./kafka-cluster.js";
import { kafkaValuesOf, type KafkaSourceDesc } from "./kafka-desc.js";
import type { KafkaSplit } from "./kafka-split.js";
import { kafkaStaticSplits } from "./kafka-static-splits.js";
import { KafkaStreamSource } from "./kafka-stream-source.js";
import { readKafkaSplit } from "./read-kafka-split.js";

export const kafkaRuntime: SourceRuntime<KafkaSourceDesc, KafkaSplit> = {
  splitKind: "kafka",
  openStream: (desc, ctx) => new KafkaStreamSource(desc.options, kafkaValuesOf(desc), ctx.sourceDir),
  staticSplits: (desc) => kafkaStaticSplits(desc.options, kafkaValuesOf(desc)),
  readSplit: (_desc, split, metrics) => readKafkaSplit(split, metrics),
  describeSplit: (split) => `Kafka topic ${split.topic} partition ${split.partition} offsets [${split.startOffset}, ${split.endOffset}) from ${split.connection.bootstrapServers}`,
  closeConnections: closeClusters,
};
