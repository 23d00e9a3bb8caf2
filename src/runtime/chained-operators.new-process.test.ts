import { describe, it } from "vitest";
import type { StreamScenario } from "../testing/scenario.js";
import { chainedOperatorScenarios } from "../testing/scenarios/chained-operators.js";
import { runScenarioInNewProcesses } from "../testing/stream-test-process.js";

/**
 * The chained stateful operator scenarios of chained-operators.test.ts (Spark's
 * MultiStatefulOperatorsSuite, with its answers), with the query in a child process that is stopped
 * before every step that adds data and replaced by a new Node process on the same checkpoint: each
 * operator's state and the watermarks the checkpoint keeps must carry the query on. Stopped
 * gracefully, and again SIGKILLed between batches (nothing a graceful stop does may matter).
 *
 * With 2 workers two of the four run: a process with a worker pool starts in 2-4 s rather than about
 * one, and the stateful operators run on the driver either way (workers run the stateless input
 * stages). The two are the aggregation chain and the join chain, one each of a single and two inputs.
 */

const TIMEOUT_MS = 180_000;

const WITH_TWO_WORKERS = new Set(["window agg -> window agg on window_time, append mode", "stream-stream join on event time -> window aggregation, append mode"]);

const cases = [
  { workers: 0, stop: "graceful", pick: (_: StreamScenario) => true },
  { workers: 2, stop: "graceful", pick: (s: StreamScenario) => WITH_TWO_WORKERS.has(s.name) },
  { workers: 0, stop: "kill", pick: (_: StreamScenario) => true },
] as const;

describe.each(cases)("chained stateful operators with $workers workers, a new process after each step ($stop stop)", ({ workers, stop, pick }) => {
  for (const s of chainedOperatorScenarios.filter(pick)) {
    it(s.name, () => runScenarioInNewProcesses(s, { workers, stop }), TIMEOUT_MS);
  }
});
