import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { DataFrame } from "../api/data-frame.js";
import { col, count, max, session_window, timestamp_seconds, window } from "../api/functions.js";
import type { Session } from "../api/session.js";
import { statefulProcessor } from "../api/stateful-processor.js";
import { isStateful } from "../operators/exec.js";
import { createExec } from "../operators/run-operators.js";
import { withSession } from "../testing/fixtures.js";
import { statefulOperators } from "./physical.js";
import { planPhysical } from "./planner.js";
import { operatorStateSchemas } from "./state-schemas.js";

/**
 * The state schema a checkpoint records for each kind of stateful operator (what a restart is
 * checked against: state/operator-state-schema.ts), and the operator names it records, which must
 * be those the operators report in progress.
 */

const StrInt = z.object({ _1: z.string(), _2: z.int() });
const PROCESSORS = new URL("../operators/testing/processors.ts", import.meta.url);

const str = (name: string, nullable = false) => ({ name, type: "string", nullable });
/** zod's `z.int()` (any safe integer) is int64. */
const long = (name: string, nullable = false) => ({ name, type: "int64", nullable });

/** `_2` seconds as `eventTime`, watermark 10 s. */
function timed(session: Session) {
  return session.memoryStream(StrInt).toDF().withColumn("eventTime", timestamp_seconds(col("_2"))).withWatermark("eventTime", "10 seconds");
}

const queries: [name: string, build: (session: Session) => DataFrame<any>, expected: unknown][] = [
  [
    "dropDuplicates: its keys; its values are not compared",
    (s) => s.memoryStream(StrInt).toDF().dropDuplicates("_1"),
    [{ operator: "dedupe", stores: [{ name: "default", keys: [str("_1")], values: null }] }],
  ],
  [
    "dropDuplicatesWithinWatermark: its keys without the event time; its value, the expiry",
    (s) => timed(s).dropDuplicatesWithinWatermark("_1", "eventTime"),
    [{ operator: "dedupeWithinWatermark", stores: [{ name: "default", keys: [str("_1")], values: [{ name: "#expiresAt", type: "timestamp", nullable: false }] }] }],
  ],
  [
    "a windowed aggregation: the plain keys, then the window; the accumulators",
    (s) => timed(s).groupBy(window(col("eventTime"), "5 seconds"), "_1").agg(count().alias("n"), max(col("_2")).alias("top")),
    [
      {
        operator: "stateStoreSave",
        stores: [
          {
            name: "default",
            keys: [str("_1"), { name: "window", type: "window", nullable: false }],
            values: [
              { name: "n#count", type: "float64", nullable: false },
              long("top#value", true),
            ],
          },
        ],
      },
    ],
  ],
  [
    "a session window aggregation",
    (s) => timed(s).groupBy(session_window(col("eventTime"), "5 seconds"), "_1").agg(count().alias("n")),
    [
      {
        operator: "sessionWindowStateStoreSave",
        stores: [{ name: "default", keys: [str("_1"), { name: "session_window", type: "window", nullable: false }], values: [{ name: "n#count", type: "float64", nullable: false }] }],
      },
    ],
  ],
  [
    "a stream-stream join: each side's join keys and columns",
    (s) => {
      const left = s.memoryStream(StrInt).toDF().select(col("_1").alias("key"), col("_2").alias("l"));
      const right = s.memoryStream(StrInt).toDF().select(col("_1").alias("key"), col("_2").alias("r"));
      return left.join(right, "key");
    },
    [
      {
        operator: "symmetricHashJoin",
        stores: [
          { name: "left", keys: [str("key")], values: [str("key"), long("l")] },
          { name: "right", keys: [str("key")], values: [str("key"), long("r")] },
        ],
      },
    ],
  ],
  [
    "transformWithState: its grouping keys; the processor's variables are not typed",
    (s) =>
      s
        .memoryStream(z.object({ value: z.string() }))
        .toDF()
        .groupByKey("value")
        .transformWithState(statefulProcessor(PROCESSORS, "RunningCount", { outputSchema: z.object({ key: z.string(), count: z.string() }) }), "none", "update"),
    [{ operator: "transformWithStateExec", stores: [{ name: "default", keys: [str("value")], values: null }] }],
  ],
  [
    "several operators, by operator id: a deduplication, then an aggregation",
    (s) => s.memoryStream(StrInt).toDF().dropDuplicates("_1").groupBy("_1").count(),
    [
      { operator: "dedupe", stores: [{ name: "default", keys: [str("_1")], values: null }] },
      { operator: "stateStoreSave", stores: [{ name: "default", keys: [str("_1")], values: [{ name: "count#count", type: "float64", nullable: false }] }] },
    ],
  ],
];

describe("the state schemas a checkpoint records", () => {
  it.each(queries)("%s", (_, build, expected) =>
    withSession(0, async (session) => {
      const plan = planPhysical(build(session).plan);
      const schemas = operatorStateSchemas(plan);
      expect(schemas).toEqual(expected);
      // The names are the operators' own.
      const names = statefulOperators(plan).map((spec) => {
        const exec = createExec(spec);
        return isStateful(exec) ? exec.operatorName : null;
      });
      expect(schemas.map((s) => s.operator)).toEqual(names);
    }),
  );
});
