import { describe, expect, it } from "vitest";
import type { DriverNode, OperatorSpec, StreamJoinSpec } from "../planner/physical.js";
import { propagateWatermarks } from "./watermark-propagation.js";

// Driver trees written by hand: what each stateful operator's input watermark is, given the global one.

const pipelines: DriverNode = { kind: "pipelines", pipelines: [0] };

const dedup = (operatorId: number): OperatorSpec => ({ op: "deduplicate", operatorId, keyColumns: [], eventTimeColumn: null, withinWatermarkDelayMs: null, inputFields: [] });

/** A time-range join whose left rows leave state `offsetMs` after the watermark: its output watermark is that much lower. */
const rangeJoin = (operatorId: number, offsetMs: number): StreamJoinSpec => ({
  op: "streamJoin",
  operatorId,
  joinType: "inner",
  leftFields: [],
  rightFields: [],
  rightPairNames: [],
  leftKeys: [],
  rightKeys: [],
  leftCondition: null,
  rightCondition: null,
  pairCondition: null,
  leftEventTime: null,
  rightEventTime: null,
  leftState: { kind: "value", column: "t", offsetMs },
  rightState: null,
});

const processingTime = (operatorId: number): OperatorSpec => ({
  op: "transformWithState",
  operatorId,
  processor: { kind: "processorRef", name: "p", module: "m", exportName: "p", args: null, udfs: {} },
  keyColumns: [],
  inputFields: [],
  outputFields: [],
  timeMode: "processingTime",
  outputMode: "append",
  eventTimeColumn: null,
  initialState: null,
});

const chain = (input: DriverNode, ...operators: OperatorSpec[]): DriverNode => ({ kind: "operators", input, operators });
const join = (spec: StreamJoinSpec): DriverNode => ({ kind: "join", left: pipelines, right: pipelines, spec });

describe("a union's output watermark is the lowest of its inputs' (Spark's WatermarkPropagator)", () => {
  it("a stateful operator after a union of a time-range join and a deduplication runs with the join's lowered watermark", () => {
    const root = chain({ kind: "union", inputs: [join(rangeJoin(0, -3_600_000)), chain(pipelines, dedup(1))] }, dedup(2));
    expect(propagateWatermarks(root, 10_000_000)).toEqual(new Map([[0, 10_000_000], [1, 10_000_000], [2, 6_400_000]]));
  });

  it("an input whose rows carry no watermark (transformWithState in processing-time mode) does not count", () => {
    const root = chain({ kind: "union", inputs: [chain(pipelines, processingTime(0)), chain(pipelines, dedup(1))] }, dedup(2));
    expect(propagateWatermarks(root, 5_000).get(2)).toBe(5_000);
  });

  it("a union of inputs none of which carries a watermark carries none", () => {
    const root = chain({ kind: "union", inputs: [chain(pipelines, processingTime(0)), chain(pipelines, processingTime(1))] }, dedup(2));
    expect(propagateWatermarks(root, 5_000).get(2)).toBeNull();
  });
});
