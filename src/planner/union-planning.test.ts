import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { Session } from "../api/session.js";
import { planPhysical } from "./planner.js";
import type { DriverNode, PhysicalPlan } from "./physical.js";

const Value = z.object({ value: z.int() });
const session = new Session({ workers: 0 });
afterAll(() => session.stop());

/** The driver tree as nested arrays: pipelines by source (their memory stream's position in `streams`), operators by kind and id. */
function shape(plan: PhysicalPlan, streams: readonly string[]): unknown {
  const source = (i: number) => {
    const desc = plan.inputs[i]!.source;
    return desc.format === "memory" ? `stream ${streams.indexOf(desc.streamId)}` : desc.format;
  };
  const visit = (node: DriverNode): unknown => {
    switch (node.kind) {
      case "pipelines":
        return node.pipelines.map(source);
      case "operators":
        return [visit(node.input), ...node.operators.map((op) => ("operatorId" in op ? `${op.op} ${op.operatorId}` : op.op))];
      case "join":
        return { join: node.spec.operatorId, left: visit(node.left), right: visit(node.right) };
      case "union":
        return { union: node.inputs.map(visit) };
    }
  };
  return visit(plan.driver);
}

describe("a union over stateful operators' outputs is planned on the driver", () => {
  it("keeps its sources in plan order and numbers stateful operators input after input", () => {
    const [a, b, c] = [session.memoryStream(Value), session.memoryStream(Value), session.memoryStream(Value)];
    const df = a.toDF().union(b.toDF().dropDuplicates()).union(c.toDF().dropDuplicates());
    const plan = planPhysical(df.plan);
    expect(plan.inputs.map((p) => p.sourceIndex)).toEqual([0, 1, 2]);
    expect(shape(plan, [a, b, c].map((s) => s.data.id))).toEqual({
      union: [{ union: [["stream 0"], [["stream 1"], "deduplicate 0"]] }, [["stream 2"], "deduplicate 1"]],
    });
  });

  it("leaves a union of stateless inputs in the workers: one pipeline per input, read together", () => {
    const [a, b] = [session.memoryStream(Value), session.memoryStream(Value)];
    const plan = planPhysical(a.toDF().union(b.toDF()).dropDuplicates().plan);
    expect(shape(plan, [a, b].map((s) => s.data.id))).toEqual([["stream 0", "stream 1"], "deduplicate 0"]);
  });
});
