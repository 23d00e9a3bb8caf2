import { describe, it } from "vitest";
import type { StreamScenario } from "../testing/scenario.js";
import { streamJoinScenarios } from "../testing/scenarios/stream-join.js";
import { runScenarioInNewProcesses } from "../testing/stream-test-process.js";

/**
 * The stream-stream join scenarios of stream-join.test.ts (Spark's StreamingJoinSuite, with its
 * answers), with the query in a child process that is stopped before every step that adds data and
 * replaced by a new Node process on the same checkpoint before the next action: every check reads
 * what a process rebuilt from the checkpoint and its state files. Left out, as in stream-join.test.ts's
 * restart variant, are the scenarios that say why they cannot restart after every step
 * (`noRestartEachStep`: their answers depend on per-input watermarks, which a restart does not keep).
 *
 * With 0 workers every other scenario runs. With 2 workers, a subset: a process with a worker pool
 * starts in 2-4 s rather than about one, and a scenario starts 4-12 processes. The join and its state
 * run on the driver either way (workers run the stateless input stages), so what 2 workers add is a
 * fresh pool in every process on a restored checkpoint: the subset is an inner join that evicts
 * state and drops late rows, and the full outer join (NULL rows on eviction, late rows after an
 * explicit restart). The full outer join runs once more with the process SIGKILLed between batches
 * instead of stopped.
 */

/** A new process takes about a second to start (more with a worker pool): each scenario starts 4-12. */
const TIMEOUT_MS = 180_000;

const WITH_TWO_WORKERS = new Set(["stream stream inner join on windows - with watermark", "windowed full outer join"]);
const KILLED = new Set(["windowed full outer join"]);

const cases = [
  { workers: 0, stop: "graceful", pick: (_: StreamScenario) => true },
  { workers: 2, stop: "graceful", pick: (s: StreamScenario) => WITH_TWO_WORKERS.has(s.name) },
  { workers: 0, stop: "kill", pick: (s: StreamScenario) => KILLED.has(s.name) },
] as const;

describe.each(cases)("stream-stream joins (Spark's StreamingJoinSuite), $workers workers, a new process after each step ($stop stop)", ({ workers, stop, pick }) => {
  for (const [group, scenarios] of Object.entries(streamJoinScenarios)) {
    const picked = scenarios.filter((s) => !s.noRestartEachStep && pick(s));
    if (picked.length === 0) continue;
    describe(group, () => {
      for (const s of picked) it(s.name, () => runScenarioInNewProcesses(s, { workers, stop }), TIMEOUT_MS);
    });
  }
});
