// What the stream-join scenario lists share: their input rows, actions and answer rows.
import type { MemoryStream } from "../../../api/memory-stream.js";
import { addData, assertNumStateRows, multiAddData, type StreamAction } from "../../stream-test.js";

export const values = (...vs: number[]) => vs.map((value) => ({ value }));
export const add = (s: MemoryStream<any>, ...vs: number[]): StreamAction => addData(s, ...values(...vs));
export const addBoth = (l: MemoryStream<any>, lv: number[], r: MemoryStream<any>, rv: number[]): StreamAction => multiAddData([l, values(...lv)], [r, values(...rv)]);
export const pairs = (...kts: [number, number][]) => kts.map(([key, time]) => ({ key, time }));
export const state = (total: number, updated: number, dropped?: number): StreamAction => assertNumStateRows(total, updated, dropped);
export const win = (key: number, end: number, leftValue: number | null, rightValue: number | null) => ({ key, end, leftValue, rightValue });
export const range = (leftKey: number | null, rightKey: number | null, leftTime: number | null, rightTime: number | null) => ({ leftKey, rightKey, leftTime, rightTime });

/**
 * Why the scenarios whose answers depend on when the watermarks of both inputs move are not
 * restarted after every step: a restart keeps only the global watermark (as Spark does), each input
 * starts again at 0 until it sees data, so stopping after every step holds the global watermark back
 * and state is evicted later than in an uninterrupted run.
 */
export const MULTI_INPUT_WATERMARK =
  "its answers depend on when the watermarks of both inputs move; a restart keeps only the global watermark (as Spark does), so restarting after every step holds it back and evicts state later than an uninterrupted run";
