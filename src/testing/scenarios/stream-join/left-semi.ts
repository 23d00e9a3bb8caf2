// Spark's StreamingLeftSemiJoinSuite: inputs, actions and expected answers.
import { addData, checkNewAnswer, startStream, stopStream } from "../../stream-test.js";
import type { StreamScenario } from "../../scenario.js";
import { add, addBoth, MULTI_INPUT_WATERMARK, pairs, state } from "./actions.js";
import { query } from "./queries.js";

export const leftSemiJoinScenarios: readonly StreamScenario[] = [
  {
    name: "windowed left semi join",
    query: query("windowedJoin", "left_semi"),
    outputMode: "append",
    actions: ([leftInput, rightInput]) => {
      const row = (key: number, end: number, leftValue: number) => ({ key, end, leftValue });
      return [
        addBoth(leftInput!, [1, 2, 3, 4, 5], rightInput!, [3, 4, 5, 6, 7]),
        // Left rows come first, so this batch's left rows all wait in state for the right ones.
        checkNewAnswer(row(3, 10, 6), row(4, 10, 8), row(5, 10, 10)),
        state(10, 10),
        addBoth(leftInput!, [21], rightInput!, [22]),
        checkNewAnswer(),
        state(2, 2),
        add(leftInput!, 22),
        // The matched left row is not kept.
        checkNewAnswer(row(22, 30, 44)),
        state(2, 0),
        stopStream(),
        startStream(),
        add(leftInput!, 1),
        checkNewAnswer(),
        state(2, 0, 1),
        add(rightInput!, 5),
        checkNewAnswer(),
        state(2, 0, 1),
      ];
    },
  },
  {
    name: "left semi join with watermark range condition",
    query: query("rangeJoin", "left_semi"),
    outputMode: "append",
    noRestartEachStep: MULTI_INPUT_WATERMARK,
    actions: ([leftInput, rightInput]) => {
      const row = (leftKey: number, leftTime: number) => ({ leftKey, leftTime });
      return [
        addData(leftInput!, ...pairs([1, 5], [3, 5])),
        checkNewAnswer(),
        state(2, 2),
        addData(rightInput!, ...pairs([1, 10], [2, 5])),
        checkNewAnswer(row(1, 5)),
        state(4, 2),
        addData(rightInput!, ...pairs([1, 9])),
        // No match: the left row has matched already.
        checkNewAnswer(),
        state(5, 1),
        addData(leftInput!, ...pairs([1, 7], [1, 30])),
        // (1, 7) matched at once and is not kept; (1, 30) is.
        checkNewAnswer(row(1, 7)),
        state(6, 1),
        addData(rightInput!, ...pairs([0, 30])),
        checkNewAnswer(),
        state(2, 1),
      ];
    },
  },
];
