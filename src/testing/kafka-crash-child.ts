// A child process for the Kafka sink's fault tests: it writes to the test broker until the crash point named by
// SLUICE_CRASH_AT kills it (SIGKILL, from src/faults/crash-points.ts), so the parent sees what a real crash
// leaves behind. Run as `node --import tsx kafka-crash-child.ts '<plan JSON>'`; `runCrashChild` does that.
import { z } from "zod";
import { col } from "../api/functions.js";
import type { MemoryStream } from "../api/memory-stream.js";
import { Session } from "../api/session.js";
import type { SchemaOfZod } from "../schema/zod-schema.js";
import type { StreamingQuery } from "../runtime/streaming-query.js";
import { field, makeBatch, utf8FromStrings } from "../batch/batch.js";
import { KafkaSink } from "../sinks/kafka-sink.js";
import { runIfMain, spawnPlanChild } from "./plan-child.js";

export type CrashPlan =
  /** Opens an exactly-once sink for `queryId` and writes the batches in order. */
  | { readonly kind: "sink"; readonly bootstrap: string; readonly topic: string; readonly queryId: string; readonly batches: readonly (readonly string[])[] }
  /** Runs `startEvents` on `checkpoint`, one micro-batch per block. */
  | { readonly kind: "query"; readonly bootstrap: string; readonly topic: string; readonly checkpoint: string; readonly blocks: readonly (readonly string[])[] };

export const Event = z.object({ id: z.string(), body: z.string() });

/** A stateless streaming query writing `id` as key and `body` as value to `topic`, exactly once. */
export function startEvents(events: MemoryStream<SchemaOfZod<typeof Event>>, bootstrap: string, topic: string, checkpoint: string): StreamingQuery {
  return events
    .toDF()
    .select(col("id").alias("key"), col("body").alias("value"))
    .writeStream.format("kafka")
    .option("kafka.bootstrap.servers", bootstrap)
    .option("topic", topic)
    .option("exactlyOnce", true)
    .option("checkpointLocation", checkpoint)
    .start();
}

/** Block `i` of a plan as event rows: `<block>-<n>` ids, the given bodies. */
export function eventsOf(block: readonly string[], i: number): { id: string; body: string }[] {
  return block.map((body, n) => ({ id: `${i}-${n}`, body }));
}

async function main(plan: CrashPlan): Promise<void> {
  if (plan.kind === "sink") {
    const sink = new KafkaSink({ bootstrapServers: plan.bootstrap, topic: plan.topic, clientId: "sluice-crash-child", transactional: { idPrefix: null, timeoutMs: 60_000 } });
    await sink.open({ queryId: plan.queryId, checkpointLocation: "/checkpoint/not/used/by/the/sink", outputMode: "append" });
    for (const [id, values] of plan.batches.entries()) {
      await sink.addBatch(id, makeBatch([field("value", "string")], [utf8FromStrings([...values])]));
    }
    await sink.close();
    return;
  }
  const session = new Session({ workers: 0 });
  try {
    const events = session.memoryStream(Event);
    const q = startEvents(events, plan.bootstrap, plan.topic, plan.checkpoint);
    for (const [i, block] of plan.blocks.entries()) {
      events.addData(...eventsOf(block, i));
      await q.processAllAvailable();
    }
    await q.stop();
  } finally {
    await session.stop();
  }
}

export interface ChildOutcome {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stderr: string;
}

const CHILD_TIMEOUT_MS = 60_000;

/** Runs the plan in a child process with `SLUICE_CRASH_AT=crashAt`; resolves when it exits (killed after 60 s). */
export function runCrashChild(plan: CrashPlan, crashAt: string): Promise<ChildOutcome> {
  return new Promise((resolve, reject) => {
    const child = spawnPlanChild(import.meta.url, plan, { SLUICE_CRASH_AT: crashAt }, ["ignore", "ignore", "pipe"]);
    let stderr = "";
    child.stderr!.on("data", (d: Buffer) => (stderr += d.toString("utf8")));
    const timer = setTimeout(() => child.kill("SIGKILL"), CHILD_TIMEOUT_MS);
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stderr });
    });
  });
}

runIfMain(import.meta.url, main);
