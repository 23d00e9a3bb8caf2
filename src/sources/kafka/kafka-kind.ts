import { narrowRecordFields, type SourceKind } from "../source-kind.js";
import type { KafkaSourceDesc } from "./kafka-desc.js";
import { kafkaDecodedFields } from "./kafka-fields.js";

/** Spark's description of a Kafka subscription: Subscribe[a,b], SubscribePattern[x.*], Assign[a-0]. */
export function kafkaStrategyText(o: { subscribe?: string; subscribePattern?: string; assign?: string }): string {
  if (o.subscribe !== undefined) return `Subscribe[${o.subscribe.split(",").map((t) => t.trim()).join(",")}]`;
  if (o.subscribePattern !== undefined) return `SubscribePattern[${o.subscribePattern}]`;
  return `Assign[${o.assign}]`;
}

export const kafkaKind: SourceKind<KafkaSourceDesc> = {
  describe: (desc) => `KafkaV2[${kafkaStrategyText(desc.options)}]`,
  /** A record schema is narrowed in PERMISSIVE mode only, and never when a dead-letter topic receives malformed records. */
  narrow(desc, needed) {
    const o = desc.options;
    if (!desc.valueFields || o.mode !== "PERMISSIVE" || o.deadLetterTopic !== undefined) return desc;
    const valueFields = narrowRecordFields(desc.valueFields, needed, o.columnNameOfCorruptRecord);
    return valueFields === desc.valueFields ? desc : { ...desc, valueFields, fields: kafkaDecodedFields(valueFields, o.includeHeaders) };
  },
  streamingRefusal: () => null,
};
