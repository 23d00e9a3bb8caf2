import { describe, expect, it } from "vitest";
import { AnalysisError } from "../errors/errors.js";
import type { InputPipeline, OperatorSpec, PhysicalPlan } from "../planner/physical.js";
import type { Fields } from "../types/dtype.js";
import { checkStreamingQuery } from "./unsupported-operations.js";

// The watermark rule holds for any physical plan: these plans are written by hand.

const fields: Fields = [{ name: "t", type: "timestamp", nullable: true }];
const watermark = (column: string, watermarkIndex: number): OperatorSpec => ({ op: "observeEventTime", column, watermarkIndex });
const dedup: OperatorSpec = { op: "deduplicate", operatorId: 0, keyColumns: ["t"], eventTimeColumn: null, withinWatermarkDelayMs: null, inputFields: fields };

function pipeline(operators: OperatorSpec[]): InputPipeline {
  return { sourceIndex: 0, source: { format: "memory", streamId: "s", fields }, operators, outputFields: fields, partialAggregateOf: null };
}

function plan(inputs: InputPipeline[], driver: OperatorSpec[]): PhysicalPlan {
  return {
    inputs,
    driver: { kind: "operators", input: { kind: "pipelines", pipelines: inputs.map((_, i) => i) }, operators: driver },
    outputFields: fields,
    watermarks: [],
    staticTables: [],
  };
}

describe("one watermark per path from a source to the sink (Spark 3.5's WatermarkPropagator)", () => {
  it("refuses a second watermark on a stream that has one, naming both columns", () => {
    const check = () => checkStreamingQuery(plan([pipeline([watermark("a", 0), watermark("b", 1)])], [dedup]), "append");
    expect(check).toThrow(AnalysisError);
    expect(check).toThrow('Redefining watermark is disallowed: withWatermark("b", ...) is applied to a stream that already has a watermark on "a"');
  });

  it("accepts one watermark per input stream", () => {
    expect(() => checkStreamingQuery(plan([pipeline([]), pipeline([])], [dedup]), "append")).not.toThrow();
    expect(() => checkStreamingQuery(plan([pipeline([watermark("a", 0)]), pipeline([watermark("a", 1)])], [dedup]), "append")).not.toThrow();
  });
});
