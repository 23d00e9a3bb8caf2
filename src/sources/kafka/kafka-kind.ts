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
  /**
   * Real-time mode reads each partition in one long-running task until the checkpoint interval
   * ends: a batch has no size to limit and no partition is split, so the options that size or
   * split micro-batches are refused rather than ignored (Spark refuses minPartitions).
   */
  realTimeRefusal(desc) {
    const o = desc.options;
    const sizing = (["minPartitions", "maxOffsetsPerTrigger", "minOffsetsPerTrigger"] as const).filter((k) => o[k] !== undefined);
    if (sizing.length === 0) return null;
    return `the Kafka source option${sizing.length > 1 ? "s" : ""} ${sizing.map((k) => `"${k}"`).join(", ")} ${sizing.length > 1 ? "are" : "is"} not supported in real-time mode: each partition is read by one long-running task, and a real-time batch lasts the trigger's checkpoint interval whatever arrives; remove ${sizing.length > 1 ? "them" : "it"}`;
  },
};
