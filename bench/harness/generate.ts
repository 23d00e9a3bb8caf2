/**
 * The load generator: pre-loads drain topics (event time set by the generator, CreateTime) and
 * feeds latency runs at a fixed rate (LogAppendTime, so the broker's clock stamps each record).
 * Records are encoded as Kafka record batches by Sluice's columnar encoder and sent as raw
 * Produce requests: kafkajs's per-message encoder would be the limit.
 */
import { produceJson } from "../../src/testing/kafka-load.js";
import { PARTITIONS } from "./topics.js";
import { eventTime, type WorkloadSpec } from "./workloads.js";

/** Records 0..count-1 of `spec`, round-robin over the partitions, event time spread over the drain span. */
export async function preload(bootstrap: string, topic: string, spec: WorkloadSpec, count: number): Promise<void> {
  await produceJson(bootstrap, topic, PARTITIONS, count, (i) => spec.value(i, eventTime(i, count)), { timestamp: (i) => eventTime(i, count) });
}

/**
 * Produces `spec`'s records at `ratePerSecond` until `untilMs`, in ticks of 50 ms, continuing
 * the record index from `from`; returns the next index. The broker stamps the append time.
 */
export async function producePaced(bootstrap: string, topic: string, spec: WorkloadSpec, ratePerSecond: number, untilMs: number, from: number): Promise<number> {
  const startedMs = Date.now();
  let next = from;
  for (;;) {
    const now = Date.now();
    if (now >= untilMs) return next;
    const due = from + Math.floor(((now - startedMs) * ratePerSecond) / 1000);
    if (due > next) {
      const first = next;
      await produceJson(bootstrap, topic, PARTITIONS, due - first, (i) => spec.value(first + i, now), { timestamp: () => now });
      next = due;
    }
    await new Promise((r) => setTimeout(r, Math.max(0, 50 - (Date.now() - now))));
  }
}
