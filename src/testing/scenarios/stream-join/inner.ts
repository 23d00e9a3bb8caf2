// Spark's StreamingJoinSuite, inner joins: its inputs, actions and expected answers.
import { addData, checkAnswer, checkNewAnswer, startStream, stopStream } from "../../stream-test.js";
import type { StreamScenario } from "../../scenario.js";
import { add, MULTI_INPUT_WATERMARK, pairs, range, state, win } from "./actions.js";
import { query } from "./queries.js";

export const innerJoinScenarios: readonly StreamScenario[] = [
  {
    name: "stream stream inner join on non-time column",
    query: query("innerJoinOnKey"),
    outputMode: "append",
    actions: ([input1, input2]) => {
      const row = (key: number) => ({ key, leftValue: key * 2, rightValue: key * 3 });
      return [
        add(input1!, 1),
        checkAnswer(),
        add(input2!, 1, 10),
        checkNewAnswer(row(1)),
        add(input1!, 10),
        checkNewAnswer(row(10)),
        add(input2!, 1),
        checkNewAnswer(row(1)),
        stopStream(),
        startStream(),
        add(input1!, 1),
        // Every 1 stays in state: there is no watermark.
        checkNewAnswer(row(1), row(1)),
        stopStream(),
        startStream(),
        add(input1!, 100),
        add(input2!, 100),
        checkNewAnswer(row(100)),
      ];
    },
  },
  {
    name: "stream stream inner join on windows - without watermark",
    query: query("innerJoinOnWindows", false),
    outputMode: "append",
    actions: ([input1, input2]) => [
      add(input1!, 1),
      checkNewAnswer(),
      add(input2!, 1),
      checkNewAnswer(win(1, 10, 2, 3)),
      stopStream(),
      startStream(),
      add(input1!, 25),
      checkNewAnswer(),
      stopStream(),
      startStream(),
      add(input2!, 25),
      checkNewAnswer(win(25, 30, 50, 75)),
      add(input1!, 1),
      // The state of 1 is still there: no watermark.
      checkNewAnswer(win(1, 10, 2, 3)),
      stopStream(),
      startStream(),
      add(input1!, 5),
      checkNewAnswer(),
      add(input2!, 5),
      checkNewAnswer(win(5, 10, 10, 15)),
    ],
  },
  {
    name: "stream stream inner join on windows - with watermark",
    query: query("innerJoinOnWindows", true),
    outputMode: "append",
    actions: ([input1, input2]) => [
      add(input1!, 1),
      checkAnswer(),
      state(1, 1),
      add(input2!, 1),
      checkAnswer(win(1, 10, 2, 3)),
      state(2, 1),
      stopStream(),
      startStream(),
      add(input1!, 25),
      // Watermark 15: the batch without data that follows drops the two rows of window [0, 10).
      checkNewAnswer(),
      state(1, 1),
      add(input2!, 25),
      checkNewAnswer(win(25, 30, 50, 75)),
      state(2, 1),
      stopStream(),
      startStream(),
      add(input2!, 1),
      // No match (state below 15 is gone), and not stored: its window is already at the watermark.
      checkNewAnswer(),
      state(2, 0),
      add(input1!, 5),
      checkNewAnswer(),
      state(2, 0, 1),
    ],
  },
  {
    name: "stream stream inner join with time range - with watermark - one side condition",
    query: query("innerRangeJoin", "10 seconds", "10 seconds", "leftKey = rightKey AND leftTime < rightTime - interval 5 seconds"),
    outputMode: "append",
    noRestartEachStep: MULTI_INPUT_WATERMARK,
    actions: ([leftInput, rightInput]) => {
      const r = (l: number, rt: number) => ({ leftKey: 1, leftTime: l, rightTime: rt });
      return [
        addData(leftInput!, ...pairs([1, 5])),
        checkAnswer(),
        addData(rightInput!, ...pairs([1, 11])),
        checkNewAnswer(r(5, 11)),
        addData(rightInput!, ...pairs([1, 10])),
        // No match: 5 is not < 10 - 5.
        checkNewAnswer(),
        state(3, 3),
        addData(leftInput!, ...pairs([1, 3], [1, 30])),
        checkNewAnswer(r(3, 10), r(3, 11)),
        state(5, 2),
        addData(rightInput!, ...pairs([0, 30])),
        checkNewAnswer(),
        // Watermark 20; right rows must have rightTime > 20 + 5: (1, 10) and (1, 11) leave state.
        state(4, 1),
        // (1, 20) is late; (1, 21) matches left 3 and 5 and is not stored (21 <= 25); (1, 28) matches and is stored.
        addData(rightInput!, ...pairs([1, 20], [1, 21], [1, 28])),
        checkNewAnswer(r(3, 21), r(5, 21), r(3, 28), r(5, 28)),
        state(5, 1, 1),
        addData(leftInput!, ...pairs([1, 20], [1, 21])),
        checkNewAnswer(r(21, 28)),
        state(6, 1, 1),
      ];
    },
  },
  {
    name: "stream stream inner join with time range - with watermark - two side conditions",
    query: query("innerRangeJoin", "20 seconds", "30 seconds", "leftKey = rightKey AND leftTime BETWEEN rightTime - interval 10 seconds AND rightTime + interval 5 seconds"),
    outputMode: "append",
    noRestartEachStep: MULTI_INPUT_WATERMARK,
    actions: ([leftInput, rightInput]) => {
      const r = (l: number, rt: number) => ({ leftKey: 1, leftTime: l, rightTime: rt });
      return [
        addData(leftInput!, ...pairs([1, 20])),
        checkAnswer(),
        addData(rightInput!, ...pairs([1, 14], [1, 15], [1, 25], [1, 26], [1, 30], [1, 31])),
        checkNewAnswer(r(20, 15), r(20, 25), r(20, 26), r(20, 30)),
        state(7, 7),
        addData(rightInput!, ...pairs([1, 60])),
        checkNewAnswer(),
        addData(leftInput!, ...pairs([1, 49], [1, 50], [1, 65], [1, 66])),
        checkNewAnswer(r(50, 60), r(65, 60)),
        // Watermark min(66 - 20, 60 - 30) = 30: right rows below 25 (14, 15) leave state.
        state(10, 5),
        addData(leftInput!, ...pairs([1, 30], [1, 31])),
        // 30 is late: neither matched nor stored.
        checkNewAnswer(r(31, 26), r(31, 30), r(31, 31)),
        state(11, 1, 1),
        addData(rightInput!, ...pairs([1, 80])),
        checkNewAnswer(),
        // Watermark min(46, 50) = 46: left rows below 36 (20, 31), right rows below 41 (25, 26, 30, 31) go.
        state(6, 1),
        addData(rightInput!, ...pairs([1, 46], [1, 50])),
        checkNewAnswer(r(49, 50), r(50, 50)),
        state(7, 1, 1),
      ];
    },
  },
];
