import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { Session } from "../api/session.js";
import { statefulProcessor } from "../api/stateful-processor.js";
import { StatefulProcessorError } from "../errors/errors.js";
import { sessionsPerFile, SUITE_CASES, suiteRunner, withSession } from "../testing/fixtures.js";
import type { StreamingQuery } from "../runtime/streaming-query.js";
import { ManualClock } from "../testing/manual-clock.js";
import { buildScenario } from "../testing/scenario.js";
import { PROCESSORS, transformWithStateScenarios } from "../testing/scenarios/transform-with-state.js";
import { addData, advanceManualClock, checkNewAnswer, execute, expectFailure, startStream, stopStream, testStream } from "../testing/stream-test.js";

/**
 * Spark's TransformWithStateSuite on its own processors (operators/testing/processors.ts, modules
 * the engine imports by URL and export name) and expected answers, with 0 and 2 workers: the
 * scenarios of testing/scenarios/transform-with-state.ts, straight through and restarted before
 * every step that adds data (transform-with-state.new-process.test.ts restarts them in a new
 * process), the processing-time timers and TTL on a manual clock, and the error paths.
 */
const Word = z.object({ value: z.string() });
const KeyCount = z.object({ key: z.string(), count: z.string() });

const sessionFor = sessionsPerFile("transform-with-state");
/** Runs a scenario on the file's session of `workers` workers. */
const onSession = (workers: number, fn: (session: Session) => Promise<void>) => fn(sessionFor(workers));

const processor = <Z extends z.ZodObject<any>>(exportName: string, outputSchema: Z, args?: Record<string, string>) =>
  statefulProcessor(PROCESSORS, exportName, { outputSchema, ...(args ? { args } : {}) });

const words = (...vs: string[]) => vs.map((value) => ({ value }));
const counts = (...kc: [string, string][]) => kc.map(([key, count]) => ({ key, count }));

function runningCount(session: Session, exportName = "RunningCount", timeMode: "none" | "processingTime" = "none") {
  const input = session.memoryStream(Word);
  const df = input.toDF().groupByKey("value").transformWithState(processor(exportName, KeyCount), timeMode, "update");
  return { input, df };
}

describe.each(SUITE_CASES)("transformWithState scenarios with $workers workers, restart before each step: $restart", ({ workers, restart }) => {
  const run = suiteRunner(restart);
  for (const s of transformWithStateScenarios) {
    it(s.name, () =>
      onSession(workers, async (session) => {
        const { inputs, df } = await buildScenario(session, s.query);
        await run(df, s.outputMode, ...s.actions(inputs));
      }));
  }
});

describe.each([0, 2])("transformWithState with %i workers", (workers) => {

  it("timer and late-row figures in progress (Spark's custom metrics), across a run with event-time timers", () =>
    onSession(workers, async (session) => {
      const s = transformWithStateScenarios.find((x) => x.query.exportName === "maxEventTime")!;
      const { inputs, df } = await buildScenario(session, s.query);
      await testStream(df, s.outputMode).run(
        ...s.actions(inputs),
        execute("figures", (q) => {
          const ops = q.recentProgress.map((p) => p.stateOperators[0]!);
          expect(ops.every((o) => o.operatorName === "transformWithStateExec")).toBe(true);
          const sum = (metric: string) => ops.reduce((n, o) => n + o.customMetrics[metric]!, 0);
          expect([sum("numRegisteredTimers"), sum("numDeletedTimers"), sum("numExpiredTimers")]).toEqual([4, 3, 2]);
          expect(ops.reduce((n, o) => n + o.numRowsDroppedByWatermark, 0)).toBe(1);
          expect(ops.at(-1)!.customMetrics.numValueStateVars).toBe(2);
        }),
      );
    }));

  it("the processor runs where tasks run (in the worker threads with workers), one instance per task of a batch", () =>
    onSession(workers, async (session) => {
      const input = session.memoryStream(Word);
      const Placement = z.object({ key: z.string(), thread: z.string(), instances: z.int() });
      const df = input.toDF().groupByKey("value").transformWithState(processor("WhereItRuns", Placement), "none", "update");
      const thread = workers === 0 ? "main" : "worker";
      // One task inline; with two workers the keys split in two shares of about equal rows: [a, b] and [c].
      const instancesOfC = workers === 0 ? 3 : 1;
      await testStream(df, "update").run(
        addData(input, ...words("a", "b", "a", "c")),
        checkNewAnswer({ key: "a", thread, instances: 1 }, { key: "b", thread, instances: 2 }, { key: "c", thread, instances: instancesOfC }),
      );
    }));

});

describe.each([0, 2])("transformWithState by processing time, on a manual clock, with %i workers", (workers) => {
  const everySecond = (clock: ManualClock) => ({ trigger: { processingTime: "1 second" }, clock }) as const;

  it("processing-time timers (Spark: transformWithState - streaming with processing time timer)", () =>
    onSession(workers, async (session) => {
      const { input, df } = runningCount(session, "RunningCountWithProcessingTimeTimer", "processingTime");
      const clock = new ManualClock();
      await testStream(df, "update", everySecond(clock)).run(
        addData(input, ...words("a")),
        advanceManualClock(1000),
        checkNewAnswer(...counts(["a", "1"])),
        advanceManualClock(1000),
        addData(input, ...words("b")),
        advanceManualClock(1000),
        checkNewAnswer(...counts(["b", "1"])),
        // At 13 s the timer of "a" (registered at 1 s for 6 s) has fired: its count is gone.
        addData(input, ...words("b")),
        advanceManualClock(10_000),
        checkNewAnswer(...counts(["a", "-1"], ["b", "2"])),
        stopStream(),
        startStream(),
        addData(input, ...words("b")),
        addData(input, ...words("c")),
        advanceManualClock(1000),
        checkNewAnswer(...counts(["c", "1"])),
        addData(input, ...words("d")),
        advanceManualClock(10_000),
        checkNewAnswer(...counts(["c", "-1"], ["d", "1"])),
      );
    }));

  it("value, list and map state expire by their TTL, and a batch without data runs when one is due", () =>
    onSession(workers, async (session) => {
      const input = session.memoryStream(Word);
      const df = input.toDF().groupByKey("value").transformWithState(processor("ExpiringCount", KeyCount, { ttl: "1 minute" }), "processingTime", "update");
      const clock = new ManualClock();
      const removedByTtl = (q: StreamingQuery) => q.recentProgress.reduce((n, p) => n + p.stateOperators[0]!.customMetrics.numValuesRemovedDueToTTLExpiry!, 0);
      await testStream(df, "update", everySecond(clock)).run(
        addData(input, ...words("a")),
        advanceManualClock(1000),
        checkNewAnswer(...counts(["a", "1/1/1000"])),
        addData(input, ...words("a", "a")),
        advanceManualClock(1000),
        checkNewAnswer(...counts(["a", "3/2/2000"])),
        // At 61.5 s the list's first element (written at 1 s) has expired: a batch without input removes it.
        advanceManualClock(59_500),
        checkNewAnswer(),
        execute("one value removed by its TTL", (q) => {
          expect(removedByTtl(q)).toBe(1);
          expect(q.lastProgress!.numInputRows).toBe(0);
        }),
        stopStream(),
        startStream(),
        // At 62.5 s the count (last written at 2 s) has expired too: it starts again.
        addData(input, ...words("a")),
        advanceManualClock(1000),
        checkNewAnswer(...counts(["a", "1/1/62500"])),
        execute("TTL figures", (q) => {
          const custom = q.lastProgress!.stateOperators[0]!.customMetrics;
          expect(custom).toMatchObject({ numValueStateWithTTLVars: 1, numListStateWithTTLVars: 1, numMapStateWithTTLVars: 1, numValuesRemovedDueToTTLExpiry: 1 });
        }),
      );
    }));
});

describe("transformWithState on static DataFrames", () => {
  it("runs once over the rows (Spark: transformWithState - batch should succeed)", () =>
    withSession(0, async (session) => {
      const df = session.createDataFrame(words("a", "b", "a"), Word).groupByKey("value").transformWithState(processor("RunningCount", KeyCount), "none", "append");
      expect(await df.orderBy("key").collect()).toEqual(counts(["a", "1"], ["b", "1"]));
    }));
});

describe("transformWithState errors", () => {
  it("an exception in handleInputRows fails the query naming the processor and the key", () =>
    withSession(0, async (session) => {
      const { input, df } = runningCount(session, "FailsOnBoom");
      await testStream(df, "update").run(
        addData(input, ...words("a")),
        checkNewAnswer(...counts(["a", "1"])),
        addData(input, ...words("boom")),
        expectFailure(`stateful processor "FailsOnBoom" (export of ${PROCESSORS.href}) failed in handleInputRows for key {"value":"boom"}: cannot count a boom`),
      );
    }));

  it("Spark's refusals: TTL outside processing time, timers without a time mode, a name declared twice or outside init, rows off the schema", () =>
    withSession(0, async (session) => {
      const run = async (mistake: string, timeMode: "none" | "eventTime" = "none") => {
        const input = session.memoryStream(Word);
        const df = input.toDF().groupByKey("value").transformWithState(processor("Misuses", KeyCount, { mistake }), timeMode, "update");
        const q = df.writeStream.format("memory").queryName(`misuse_${mistake}_${timeMode}`).start();
        await input.addData({ value: "a" });
        await q.processAllAvailable().catch(() => undefined);
        await q.stop();
        return q.exception?.cause as StatefulProcessorError | Error;
      };
      expect((await run("ttl", "eventTime")).message).toContain('Cannot provide TTLConfig for state variable "v" in time mode "eventTime"');
      expect((await run("timer")).message).toContain('registerTimer needs a time mode: transformWithState(processor, "processingTime" | "eventTime", ...)');
      expect((await run("twice")).message).toContain('state variable "v" is declared twice in init');
      expect((await run("late-declare")).message).toContain('state variable "late" is declared in init only');
      const bad = await run("bad-output");
      expect(bad).toBeInstanceOf(StatefulProcessorError);
      expect(bad.message).toContain('row 0, column "count": expected a string (string), got number 7');
    }));

  it("options are checked where the query is written", () =>
    withSession(0, async (session) => {
      const grouped = session.memoryStream(Word).toDF().groupByKey("value");
      const p = processor("RunningCount", KeyCount);
      expect(() => grouped.transformWithState(p, "wallClock" as never, "update")).toThrow('timeMode must be "none", "processingTime" or "eventTime"');
      expect(() => grouped.transformWithState(p, "none", "complete" as never)).toThrow("Spark does not run transformWithState in complete mode");
      expect(() => grouped.transformWithState({} as never, "none", "update")).toThrow("the processor must come from statefulProcessor(module, exportName, { outputSchema })");
      const stream = session.memoryStream(Word).toDF().groupByKey("value");
      expect(() => grouped.transformWithState(p, "none", "update", { initialState: stream })).toThrow("initialState must be a static DataFrame");
      expect(() => statefulProcessor(PROCESSORS, "RunningCount", { outputSchema: "x" as never })).toThrow("outputSchema must be a zod object");
      expect(() => grouped.transformWithState(p, "none", "update").writeStream.outputMode("complete").format("memory").queryName("c").start()).toThrow(
        "Complete output mode not supported when there are no streaming aggregations",
      );
    }));
});
