import { z } from "zod";
import { col, count, from_json, struct, sum, to_json, unix_millis, window } from "../api/functions.js";
import type { Session } from "../api/session.js";

/** Windowed counts of Kafka events (Nexmark/W3 shape), written exactly once to Kafka or to JSON files. */
export interface WindowedCountsPlan {
  readonly kind: "windowedCounts";
  readonly bootstrap: string;
  readonly input: string;
  readonly checkpoint: string;
  readonly sink: { readonly kind: "kafka"; readonly topic: string } | { readonly kind: "file"; readonly path: string };
  readonly maxOffsetsPerTrigger: number;
  readonly workers: number;
  /** The session's retention (small values make state maintenance delete files during the run). */
  readonly minBatchesToRetain?: number;
  readonly minDeltasForSnapshot?: number;
  /**
   * availableNow (the default): the query ends by itself once the input is done. "default": the
   * default trigger, whose batches that move the watermark are followed at once by their no-data
   * batch; the child stops the query once it has processed all there is.
   */
  readonly trigger?: "availableNow" | "default";
}

const Keyed = z.object({ key: z.string(), value: z.int() });
/** Event time is the record's timestamp; windows of 10 s, a watermark 5 s behind the latest event. */
export const WINDOW_MS = 10_000;
export const DELAY_MS = 5_000;

/** The query of the scenario, ready to start (under availableNow, it ends when the input is done). */
export function windowedCounts(session: Session, plan: WindowedCountsPlan) {
  const counts = session.readStream
    .format("kafka")
    .option("kafka.bootstrap.servers", plan.bootstrap)
    .option("subscribe", plan.input)
    .option("startingOffsets", "earliest")
    .option("maxOffsetsPerTrigger", plan.maxOffsetsPerTrigger)
    .load()
    .select(from_json(col("value"), Keyed), "timestamp")
    .withWatermark("timestamp", `${DELAY_MS} milliseconds`)
    .groupBy(window(col("timestamp"), `${WINDOW_MS} milliseconds`), "key")
    .agg(count().alias("count"), sum(col("value")).alias("sum"))
    .select(unix_millis(col("window.start")).alias("window_start"), col("key"), col("count"), col("sum"));
  const sink = plan.sink;
  const writer =
    sink.kind === "kafka"
      ? counts
          .select(col("key"), to_json(struct(col("window_start"), col("key"), col("count"), col("sum"))).alias("value"))
          .writeStream.format("kafka")
          .option("kafka.bootstrap.servers", plan.bootstrap)
          .option("topic", sink.topic)
          .option("exactlyOnce", true)
      : counts.writeStream.format("json").option("path", sink.path);
  const ready = writer.outputMode("append").option("checkpointLocation", plan.checkpoint);
  return plan.trigger === "default" ? ready : ready.trigger({ availableNow: true });
}

