// Spark's StreamingJoinSuite (inner, outer, full outer and left semi suites) on its own inputs and with
// its expected answers, as scenario data (see testing/scenario.ts): stream-join/queries.ts holds the queries, named by export so
// that a child process builds them too; inner.ts, outer.ts and left-semi.ts hold the actions and answers.
// Event times are whole seconds (Spark's `timestamp_seconds`), window ends are reported in seconds,
// and `assertNumStateRows(total, updated)` reads the join's state rows as Spark's progress reports them.
// Run by src/operators/stream-join.test.ts (in process) and stream-join.new-process.test.ts.
import { innerJoinScenarios } from "./stream-join/inner.js";
import { leftSemiJoinScenarios } from "./stream-join/left-semi.js";
import { outerJoinScenarios } from "./stream-join/outer.js";

export { innerJoinScenarios, leftSemiJoinScenarios, outerJoinScenarios };

/** Every scenario, by the describe block of its Spark suite. */
export const streamJoinScenarios = { inner: innerJoinScenarios, outer: outerJoinScenarios, "left semi": leftSemiJoinScenarios } as const;
