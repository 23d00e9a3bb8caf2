import { describe, it } from "vitest";
import type { StreamScenario } from "../testing/scenario.js";
import { deduplicationScenarios, withinWatermarkScenarios } from "../testing/scenarios/deduplication.js";
import { runScenarioInNewProcesses } from "../testing/stream-test-process.js";

/**
 * The deduplication scenarios of deduplication-suite.test.ts (Spark's StreamingDeduplicationSuite
 * and StreamingDeduplicationWithinWatermarkSuite, with their answers), with the query in a child
 * process that is stopped before every step that adds data and replaced by a new Node process on the
 * same checkpoint: every check reads what a process rebuilt from the checkpoint and its state files
 * (the keys seen, when each may be forgotten, the global watermark that decides what is late).
 *
 * With 0 workers: the deduplication runs on the driver either way, and a worker pool would add its
 * start-up to every process. Stopped gracefully, all of them; SIGKILLed between batches instead, a
 * subset: the time goes into starting processes (one per step that adds data, 54 for all twelve
 * scenarios, about a second each), and what a kill can break that a graceful stop would mend
 * (state closed without a flush, the lock left behind) is the same for every scenario. The subset
 * has one scenario per kind of state: keys forgotten by the watermark with late rows dropped, a
 * deduplication feeding a window aggregation (two operators' state, windows emitted after a
 * restart), and keys that expire a delay after their first event time (within the watermark).
 */

/** A new process takes about a second to start (more on a busy machine): each scenario starts 2-7. */
const TIMEOUT_MS = 120_000;

const KILLED = new Set([
  "deduplicate with watermark",
  "deduplicate with aggregate - append mode",
  "deduplicate with subset of columns which event time column is not in subset",
]);

const suites = [
  ["streaming deduplication (Spark's StreamingDeduplicationSuite)", deduplicationScenarios],
  ["deduplication within watermark (Spark's StreamingDeduplicationWithinWatermarkSuite)", withinWatermarkScenarios],
] as const;

// A renamed scenario must not silently leave the subset.
for (const name of KILLED) {
  if (!suites.some(([, scenarios]) => scenarios.some((s) => s.name === name))) throw new Error(`KILLED names "${name}", which is no deduplication scenario`);
}

const cases = [
  { stop: "graceful", pick: (_: StreamScenario) => true },
  { stop: "kill", pick: (s: StreamScenario) => KILLED.has(s.name) },
] as const;

describe.each(cases)("deduplication with 0 workers, a new process after each step ($stop stop)", ({ stop, pick }) => {
  for (const [suite, scenarios] of suites) {
    describe(suite, () => {
      for (const s of scenarios.filter(pick)) it(s.name, () => runScenarioInNewProcesses(s, { workers: 0, stop }), TIMEOUT_MS);
    });
  }
});
