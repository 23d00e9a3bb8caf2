import { describe, it } from "vitest";
import type { StreamScenario } from "../testing/scenario.js";
import { transformWithStateScenarios } from "../testing/scenarios/transform-with-state.js";
import { runScenarioInNewProcesses } from "../testing/stream-test-process.js";

/**
 * The transformWithState scenarios of transform-with-state.test.ts (Spark's TransformWithStateSuite,
 * with its answers), with the query in a child process that is stopped before every step that adds
 * data and replaced by a new Node process on the same checkpoint: the processor's value, list and
 * map state and its timers must carry the query on from the checkpoint alone. Stopped gracefully,
 * and again SIGKILLed between batches.
 *
 * With 2 workers, where the processor runs in the worker threads of each new process, two of them
 * run (a process with a worker pool starts in 2-4 s rather than about one): the one with timers and
 * the one with UDFs, which the workers import too. SIGKILLed, the two whose state is the richest
 * (value state cleared and set again; values and timers) run: a kill and a graceful stop leave the
 * same checkpoint between batches, and each scenario costs 5-10 s of process starts.
 */

const TIMEOUT_MS = 180_000;

const WITH_TWO_WORKERS = new Set(["maxEventTime", "scoresWithUdfs"]);
const KILLED = new Set(["runningCount", "maxEventTime"]);

const cases = [
  { workers: 0, stop: "graceful", pick: (_: StreamScenario) => true },
  { workers: 2, stop: "graceful", pick: (s: StreamScenario) => WITH_TWO_WORKERS.has(s.query.exportName) },
  { workers: 0, stop: "kill", pick: (s: StreamScenario) => KILLED.has(s.query.exportName) },
] as const;

describe.each(cases)("transformWithState with $workers workers, a new process after each step ($stop stop)", ({ workers, stop, pick }) => {
  for (const s of transformWithStateScenarios.filter(pick)) {
    it(s.name, () => runScenarioInNewProcesses(s, { workers, stop }), TIMEOUT_MS);
  }
});
