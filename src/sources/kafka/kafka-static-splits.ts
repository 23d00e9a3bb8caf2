import type { KafkaSourceOptions } from "../../config/kafka-options.js";
import type { KafkaValues } from "./kafka-desc.js";
import type { KafkaSplit } from "./kafka-split.js";
import { KafkaMetadata } from "./kafka-metadata.js";
import { connectionOf, kafkaSplits, lookupPolicyOf, resolveOffsetSpec, resolveStartingOffsets, strategyOf } from "./kafka-options-resolve.js";
import { resolveValues } from "./kafka-value-format.js";
import { tpKey } from "./partition-offsets.js";

/** A batch read of Kafka (`read.format("kafka")`): startingOffsets (default earliest) to endingOffsets (default latest). */
export async function kafkaStaticSplits(o: KafkaSourceOptions, values: KafkaValues | null): Promise<KafkaSplit[]> {
  // First, so that a schema that cannot be read fails before any broker is asked.
  const resolved = await resolveValues(values);
  const metadata = new KafkaMetadata(connectionOf(o), lookupPolicyOf(o));
  try {
    const partitions = await metadata.partitions(strategyOf(o));
    const start = await resolveStartingOffsets(o, partitions, metadata, "earliest");
    const end = await resolveOffsetSpec(o.endingOffsets ?? "latest", "endingOffsets", partitions, metadata);
    return kafkaSplits(
      o,
      partitions.map((tp) => ({ ...tp, start: start.get(tpKey(tp))!, end: end.get(tpKey(tp))! })),
      resolved,
    );
  } finally {
    metadata.close();
  }
}
