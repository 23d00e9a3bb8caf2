// Spark's StreamingOuterJoinSuite and full outer join suite: inputs, actions and expected answers.
import { addData, checkAnswer, checkNewAnswer, startStream, stopStream } from "../../stream-test.js";
import type { StreamScenario } from "../../scenario.js";
import { add, addBoth, MULTI_INPUT_WATERMARK, pairs, range, state, win } from "./actions.js";
import { query } from "./queries.js";

const leftRow = (key: number, end: number, leftValue: number, rightValue: string | null) => ({ key, end, leftValue, rightValue });
const rightRow = (key_right: number, end: number, leftValue: number | null, rightValue: string) => ({ key_right, end, leftValue, rightValue });

export const outerJoinScenarios: readonly StreamScenario[] = [
  {
    name: "left outer early state exclusion on left",
    query: query("sideConditionJoin", "left", "left"),
    outputMode: "append",
    actions: ([leftInput, rightInput]) => [
      addBoth(leftInput!, [1, 2, 3], rightInput!, [3, 4, 5]),
      // Left rows failing leftValue > 4 get their NULL row at once and are not stored.
      checkNewAnswer(leftRow(3, 10, 6, "9"), leftRow(1, 10, 2, null), leftRow(2, 10, 4, null)),
      state(4, 4),
      addBoth(leftInput!, [20], rightInput!, [21]),
      // No more NULL rows when the watermark moves.
      checkNewAnswer(),
      add(rightInput!, 20),
      checkNewAnswer(leftRow(20, 30, 40, "60")),
    ],
  },
  {
    name: "left outer early state exclusion on right",
    query: query("sideConditionJoin", "left", "right"),
    outputMode: "append",
    actions: ([leftInput, rightInput]) => [
      addBoth(leftInput!, [3, 4, 5], rightInput!, [1, 2, 3]),
      checkNewAnswer(leftRow(3, 10, 6, "9")),
      state(4, 4),
      // Watermark 10: the batch without data emits the NULL rows.
      addBoth(leftInput!, [20], rightInput!, [21]),
      checkNewAnswer(leftRow(4, 10, 8, null), leftRow(5, 10, 10, null)),
      add(rightInput!, 20),
      checkNewAnswer(leftRow(20, 30, 40, "60")),
    ],
  },
  {
    name: "right outer early state exclusion on left",
    query: query("sideConditionJoin", "right", "left"),
    outputMode: "append",
    actions: ([leftInput, rightInput]) => [
      addBoth(leftInput!, [1, 2, 3], rightInput!, [3, 4, 5]),
      checkNewAnswer(rightRow(3, 10, 6, "9")),
      state(4, 4),
      addBoth(leftInput!, [20], rightInput!, [21]),
      checkNewAnswer(rightRow(4, 10, null, "12"), rightRow(5, 10, null, "15")),
      add(rightInput!, 20),
      checkNewAnswer(rightRow(20, 30, 40, "60")),
    ],
  },
  {
    name: "right outer early state exclusion on right",
    query: query("sideConditionJoin", "right", "right"),
    outputMode: "append",
    actions: ([leftInput, rightInput]) => [
      addBoth(leftInput!, [3, 4, 5], rightInput!, [1, 2, 3]),
      checkNewAnswer(rightRow(3, 10, 6, "9"), rightRow(1, 10, null, "3"), rightRow(2, 10, null, "6")),
      state(4, 4),
      addBoth(leftInput!, [20], rightInput!, [21]),
      checkNewAnswer(),
      add(rightInput!, 20),
      checkNewAnswer(rightRow(20, 30, 40, "60")),
    ],
  },
  ...(["left", "right"] as const).map(
    (how): StreamScenario => ({
      name: `windowed ${how} outer join`,
      query: query("windowedJoin", how),
      outputMode: "append",
      actions: ([leftInput, rightInput]) => [
        addBoth(leftInput!, [1, 2, 3, 4, 5], rightInput!, [3, 4, 5, 6, 7]),
        checkNewAnswer(win(3, 10, 6, 9), win(4, 10, 8, 12), win(5, 10, 10, 15)),
        // Watermark 11: the batch without data emits the NULL rows.
        addBoth(leftInput!, [21], rightInput!, [22]),
        checkNewAnswer(...(how === "left" ? [win(1, 10, 2, null), win(2, 10, 4, null)] : [win(6, 10, null, 18), win(7, 10, null, 21)])),
        state(2, 12),
        add(leftInput!, 22),
        checkNewAnswer(win(22, 30, 44, 66)),
        state(3, 1),
      ],
    }),
  ),
  ...(["left", "right"] as const).map(
    (how): StreamScenario => ({
      name: `${how} outer with watermark range condition`,
      query: query("rangeJoin", how),
      outputMode: "append",
      noRestartEachStep: MULTI_INPUT_WATERMARK,
      actions: ([leftInput, rightInput]) => [
        addData(leftInput!, ...pairs([1, 5], [3, 5])),
        checkAnswer(),
        addData(rightInput!, ...pairs([1, 10], [2, 5])),
        checkNewAnswer(range(1, 1, 5, 10)),
        addData(rightInput!, ...pairs([1, 11])),
        // No match: the left time is too low.
        checkNewAnswer(),
        state(5, 5),
        addData(leftInput!, ...pairs([1, 7], [1, 30])),
        checkNewAnswer(range(1, 1, 7, 10), range(1, 1, 7, 11)),
        state(7, 2),
        // Watermark 30 - 10 = 20: the batch without data emits the NULL row.
        addData(rightInput!, ...pairs([0, 30])),
        checkNewAnswer(how === "left" ? range(3, null, 5, null) : range(null, 2, null, 5)),
        state(2, 1),
      ],
    }),
  ),
  {
    name: "left outer join with non-key condition violated",
    query: query("leftOuterWithNonKeyCondition"),
    outputMode: "append",
    actions: ([li, ri]) => [
      addBoth(li!, [1, 2, 3], ri!, [1, 2, 3]),
      checkNewAnswer(win(1, 10, 2, null), win(2, 10, 4, null), win(3, 10, 6, null)),
      // Only right 1, 2 and 3 are stored.
      state(3, 3),
      addBoth(li!, [20], ri!, [21]),
      checkNewAnswer(),
      state(2, 2),
      add(ri!, 20),
      checkNewAnswer(win(20, 30, 40, 60)),
      state(3, 1),
      addBoth(li!, [40, 41], ri!, [40, 41]),
      checkNewAnswer(win(40, 50, 80, 120), win(41, 50, 82, 123)),
      state(4, 4),
      addBoth(li!, [70], ri!, [71]),
      checkNewAnswer(),
      state(2, 2),
      add(ri!, 70),
      checkNewAnswer(win(70, 80, 140, 210)),
      state(3, 1),
      addBoth(li!, [101, 102, 103], ri!, [101, 102, 103]),
      checkNewAnswer(),
      // Only left 101 - 103 are stored (the right ones fail their condition). Spark's suite reads
      // 6 here, the count of the batch with data: Sluice's check comes after the batch without
      // data that follows (watermark 93), which has evicted window [70, 80).
      state(3, 3),
      addBoth(li!, [1000], ri!, [1001]),
      checkNewAnswer(win(101, 110, 202, null), win(102, 110, 204, null), win(103, 110, 206, null)),
      state(2, 2),
    ],
  },
  {
    name: "windowed full outer join",
    query: query("windowedJoin", "full"),
    outputMode: "append",
    actions: ([leftInput, rightInput]) => [
      addBoth(leftInput!, [1, 2, 3, 4, 5], rightInput!, [3, 4, 5, 6, 7]),
      checkNewAnswer(win(3, 10, 6, 9), win(4, 10, 8, 12), win(5, 10, 10, 15)),
      state(10, 10),
      // Watermark 11: rows of window [0, 10) go, unmatched ones with NULLs.
      addBoth(leftInput!, [21], rightInput!, [22]),
      checkNewAnswer(win(1, 10, 2, null), win(2, 10, 4, null), win(6, 10, null, 18), win(7, 10, null, 21)),
      state(2, 2),
      add(leftInput!, 22),
      checkNewAnswer(win(22, 30, 44, 66)),
      state(3, 1),
      stopStream(),
      startStream(),
      add(leftInput!, 1),
      // Late: below the state key watermark 12.
      checkNewAnswer(),
      state(3, 0, 1),
      add(rightInput!, 5),
      checkNewAnswer(),
      state(3, 0, 1),
    ],
  },
  {
    name: "full outer join with watermark range condition",
    query: query("rangeJoin", "full"),
    outputMode: "append",
    noRestartEachStep: MULTI_INPUT_WATERMARK,
    actions: ([leftInput, rightInput]) => [
      addData(leftInput!, ...pairs([1, 5], [3, 5])),
      checkNewAnswer(),
      state(2, 2),
      addData(rightInput!, ...pairs([1, 10], [2, 5])),
      checkNewAnswer(range(1, 1, 5, 10)),
      state(4, 2),
      addData(rightInput!, ...pairs([1, 9])),
      checkNewAnswer(range(1, 1, 5, 9)),
      state(5, 1),
      addData(leftInput!, ...pairs([1, 7], [1, 30])),
      checkNewAnswer(range(1, 1, 7, 9), range(1, 1, 7, 10)),
      state(7, 2),
      addData(rightInput!, ...pairs([0, 30])),
      checkNewAnswer(range(3, null, 5, null), range(null, 2, null, 5)),
      state(2, 1),
    ],
  },
];
