import { describe, it } from "vitest";
import { withSession } from "../testing/fixtures.js";
import { buildScenario } from "../testing/scenario.js";
import { streamJoinScenarios } from "../testing/scenarios/stream-join.js";
import { restartBeforeEachInput, testStream } from "../testing/stream-test.js";

/**
 * Spark's StreamingJoinSuite (inner, outer, full outer and left semi suites) on its own inputs
 * and with its expected answers (the queries and actions: src/testing/scenarios/stream-join.ts).
 * Each scenario runs with 0 and 2 workers, and again stopped and restarted (state read back from
 * the checkpoint) before every step that adds data, except the scenarios that say why they cannot
 * be (`noRestartEachStep`). stream-join.new-process.test.ts runs them with each start in a new process.
 */

const cases = [
  { workers: 0, restart: false },
  { workers: 2, restart: false },
  { workers: 0, restart: true },
] as const;

describe.each(cases)("stream-stream joins (Spark's StreamingJoinSuite), $workers workers, restart after each step: $restart", ({ workers, restart }) => {
  for (const [group, scenarios] of Object.entries(streamJoinScenarios)) {
    describe(group, () => {
      for (const s of scenarios.filter((s) => !(restart && s.noRestartEachStep))) {
        it(s.name, () =>
          withSession(workers, async (session) => {
            const { inputs, df } = await buildScenario(session, s.query);
            const actions = s.actions(inputs);
            await testStream(df, s.outputMode).run(...(restart ? restartBeforeEachInput(actions) : actions));
          }));
      }
    });
  }
});
