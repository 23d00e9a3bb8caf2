import { InternalError } from "../errors/errors.js";
import { driverInputs, type DriverNode, type InputPipeline } from "./physical.js";

/**
 * Numbers the input pipelines in the order their leaves appear in the driver tree, inputs left
 * to right: the order Spark lists a query's sources in, and the one the checkpoint records them
 * (and a file source's log) by. The planner hands pipelines to the driver as it places them, and
 * a union hands over those of an input that runs a stateful operator before those of an earlier
 * input that stays in the workers until the union; numbering them afterwards keeps a query's
 * sources in plan order, whatever its unions.
 */
export function inSourceOrder(driver: DriverNode, pipelines: readonly InputPipeline[]): { driver: DriverNode; pipelines: InputPipeline[] } {
  const order: number[] = [];
  const visit = (node: DriverNode): void => {
    if (node.kind === "pipelines") order.push(...node.pipelines);
    driverInputs(node).forEach(visit);
  };
  visit(driver);
  if (order.length !== pipelines.length || new Set(order).size !== order.length) {
    throw new InternalError(`the driver tree reads pipelines [${order.join(", ")}] of ${pipelines.length}: each must appear once`);
  }
  const renumbered = new Map(order.map((old, i) => [old, i]));
  return {
    driver: renumber(driver, renumbered),
    pipelines: order.map((old, i) => ({ ...pipelines[old]!, sourceIndex: i })),
  };
}

function renumber(node: DriverNode, to: ReadonlyMap<number, number>): DriverNode {
  switch (node.kind) {
    case "pipelines":
      return { kind: "pipelines", pipelines: node.pipelines.map((i) => to.get(i)!) };
    case "operators":
      return { ...node, input: renumber(node.input, to) };
    case "join":
      return { ...node, left: renumber(node.left, to), right: renumber(node.right, to) };
    case "union":
      return { kind: "union", inputs: node.inputs.map((input) => renumber(input, to)) };
  }
}
