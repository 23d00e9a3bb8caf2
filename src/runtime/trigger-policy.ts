import { InternalError } from "../errors/errors.js";
import type { Trigger } from "../config/options.js";

/** Polling delay of the default trigger when no data is available (Spark's pollingDelay, 10 ms). */
export const IDLE_POLL_MS = 10;

/** What a trigger found: a batch ran (with or without data), or nothing was there to run. */
export type TriggerOutcome = "ran" | "idle";

/**
 * When the next trigger fires, as Spark's trigger executors decide it: the default trigger runs
 * batches back to back and polls when idle; `processingTime` fires at most once per interval (a
 * batch that took longer is followed at once); `once` runs one batch; `availableNow` runs
 * batches until nothing is left;
 * `latencyTarget` runs batches back to back like the default, each sized by runtime/batch-sizer.ts.
 */
export interface TriggerPolicy {
  /** Milliseconds to wait before the next trigger, or "stop" to end the query. */
  afterTrigger(outcome: TriggerOutcome, triggerStartMs: number, nowMs: number): number | "stop";
}

export function triggerPolicy(trigger: Trigger): TriggerPolicy {
  switch (trigger.kind) {
    case "default":
    // Sized batches run back to back like the default trigger's: the size, not a wait, keeps latency in bounds.
    case "latencyTarget":
      return { afterTrigger: (outcome) => (outcome === "ran" ? 0 : IDLE_POLL_MS) };
    case "processingTime":
      return { afterTrigger: (_outcome, start, now) => Math.max(0, trigger.intervalMs - (now - start)) };
    case "once":
      return { afterTrigger: () => "stop" };
    case "availableNow":
      return { afterTrigger: (outcome) => (outcome === "ran" ? 0 : "stop") };
    case "realTime":
      // A real-time query has its own execution (runtime/real-time-execution.ts), with no triggers to space.
      throw new InternalError("a real-time trigger reached the micro-batch loop");
  }
}
