import { describe, it } from "vitest";
import { chainedOperatorScenarios } from "../testing/scenarios/chained-operators.js";
import { runScenarioInNewProcesses } from "../testing/stream-test-process.js";

/**
 * The chained stateful operator scenarios of chained-operators.test.ts (Spark's
 * MultiStatefulOperatorsSuite, with its answers), with the query in a child process that is stopped
 * after every step that adds data and replaced by a new Node process on the same checkpoint: each
 * operator's state and the watermarks the checkpoint keeps must carry the query on. Stopped
 * gracefully, and again SIGKILLed between batches (nothing a graceful stop does may matter).
 */

const TIMEOUT_MS = 180_000;

const cases = [
  { workers: 0, stop: "graceful" },
  { workers: 2, stop: "graceful" },
  { workers: 0, stop: "kill" },
] as const;

describe.each(cases)("chained stateful operators with $workers workers, a new process after each step ($stop stop)", ({ workers, stop }) => {
  for (const s of chainedOperatorScenarios) {
    it(s.name, () => runScenarioInNewProcesses(s, { workers, stop }), TIMEOUT_MS);
  }
});
