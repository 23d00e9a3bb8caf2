import { describe, it } from "vitest";
import { withSession } from "../testing/fixtures.js";
import { buildScenario } from "../testing/scenario.js";
import { chainedOperatorScenarios } from "../testing/scenarios/chained-operators.js";
import { testStream } from "../testing/stream-test.js";

/**
 * Several stateful operators in one query, each with its own watermark (Spark 3.4+'s watermark
 * propagation), on the inputs and answers of Spark's MultiStatefulOperatorsSuite (the queries and
 * actions: src/testing/scenarios/chained-operators.ts), with 0 and 2 workers.
 * chained-operators.new-process.test.ts runs them stopped after every step that adds data and
 * restarted in a new process. They are not restarted after every step here: in one process a stop
 * right after addData races the query's next trigger, and when the batch with the data runs first,
 * the batch without data that would close the windows does not (a restarted query waits for data).
 */
describe.each([0, 2])("chained stateful operators with %i workers", (workers) => {
  for (const s of chainedOperatorScenarios) {
    it(s.name, () =>
      withSession(workers, async (session) => {
        const { inputs, df } = await buildScenario(session, s.query);
        await testStream(df, s.outputMode).run(...s.actions(inputs));
      }));
  }
});
