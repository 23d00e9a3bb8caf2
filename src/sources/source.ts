import type { SourceDesc } from "../plan/logical.js";
import type { InputSplit } from "../workers/protocol.js";

/** A source offset: any JSON value; each source defines its own shape. Written as-is to the offsets log. */
export type Offset = unknown;

/**
 * A streaming source as the micro-batch loop sees it (Spark's `SupportsAdmissionControl` shape):
 * the driver asks for the latest offset it may read up to, records it in the offsets log, and
 * asks for the splits between two offsets. Reading the data happens in workers, from the splits.
 */
export interface StreamSource {
  /** Shown as `sources[].description` in progress. */
  readonly description: string;
  /**
   * The offset before any data; batch 0 reads from here. Sources that resolve it against live
   * data (Kafka's "latest") record it in their folder under the checkpoint, so a query that
   * restarts before its first commit starts from the same place.
   */
  initialOffset(): Offset | Promise<Offset>;
  /**
   * The offset the next batch should end at, honouring rate limits (maxFilesPerTrigger...).
   * Equal to `start` when there is nothing new.
   */
  latestOffset(start: Offset): Promise<Offset>;
  /** The newest offset available regardless of rate limits, for lag and availableNow. */
  reportLatestOffset(): Promise<Offset>;
  /** Input splits covering (start, end]; one task each. */
  planSplits(start: Offset, end: Offset): Promise<readonly InputSplit[]>;
  /** Called after batch `end` committed: data before it will not be asked for again. */
  commit(end: Offset): void;
  /** Source-specific progress metrics for a batch that ended at `end` (Spark's `metrics` map). */
  metrics?(end: Offset): Readonly<Record<string, string>>;
  /** Releases connections; called when the query stops. */
  stop(): Promise<void>;
}

export function sameOffset(a: Offset, b: Offset): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

export function describeSource(desc: SourceDesc): string {
  switch (desc.format) {
    case "memory":
      return `MemoryStream[${desc.fields.map((f) => f.name).join(",")}]`;
    case "rate":
      return `RateStreamV2[rowsPerSecond=${desc.rowsPerSecond}, rampUpTimeSeconds=${desc.rampUpTimeMs / 1000}, numPartitions=${desc.numPartitions}]`;
    case "json":
      return `FileStreamSource[${desc.path}]`;
    case "table":
      return `Table[${desc.tableId}]`;
    case "kafka":
      return `KafkaV2[${kafkaStrategyText(desc.options)}]`;
  }
}

/** Spark's description of a Kafka subscription: Subscribe[a,b], SubscribePattern[x.*], Assign[a-0]. */
export function kafkaStrategyText(o: { subscribe?: string; subscribePattern?: string; assign?: string }): string {
  if (o.subscribe !== undefined) return `Subscribe[${o.subscribe.split(",").map((t) => t.trim()).join(",")}]`;
  if (o.subscribePattern !== undefined) return `SubscribePattern[${o.subscribePattern}]`;
  return `Assign[${o.assign}]`;
}
