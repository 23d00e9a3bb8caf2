import { describe, it } from "vitest";
import { SUITE_CASES, suiteRunner, withSession } from "../testing/fixtures.js";
import { buildScenario } from "../testing/scenario.js";
import { chainedOperatorScenarios } from "../testing/scenarios/chained-operators.js";

/**
 * Several stateful operators in one query, each with its own watermark (Spark 3.4+'s watermark
 * propagation), on the inputs and answers of Spark's MultiStatefulOperatorsSuite (the queries and
 * actions: src/testing/scenarios/chained-operators.ts), with 0 and 2 workers, straight through and
 * restarted in this process before every step that adds data;
 * chained-operators.new-process.test.ts restarts them in a new process.
 */
describe.each(SUITE_CASES)("chained stateful operators with $workers workers, restart before each step: $restart", ({ workers, restart }) => {
  const run = suiteRunner(restart);
  for (const s of chainedOperatorScenarios) {
    it(s.name, () =>
      withSession(workers, async (session) => {
        const { inputs, df } = await buildScenario(session, s.query);
        await run(df, s.outputMode, ...s.actions(inputs));
      }));
  }
});
