import { describe, expect, it } from "vitest";
import { sessionize } from "./window-session.js";
import { assignWindows, isLate, lastWindowStart } from "./window.js";

/** (row, start) pairs of an assignment, for exact comparison. */
function pairs(times: number[], w: { sizeMs: number; slideMs: number; startMs: number }, valid: Uint8Array | null = null) {
  const a = assignWindows(Float64Array.from(times), valid, w);
  return Array.from(a.rows, (r, k) => [r, a.starts[k]]);
}

describe("assignWindows", () => {
  it("puts each row in one tumbling window [s, s + size)", () => {
    expect(pairs([0, 9, 10, 25], { sizeMs: 10, slideMs: 10, startMs: 0 })).toEqual([
      [0, 0],
      [1, 0],
      [2, 10],
      [3, 20],
    ]);
  });

  it("puts each row in every overlapping sliding window, earliest first", () => {
    // size 10, slide 5: t = 12 is in [5, 15) and [10, 20); t = 10 in [5, 15) and [10, 20).
    expect(pairs([12, 10, 4], { sizeMs: 10, slideMs: 5, startMs: 0 })).toEqual([
      [0, 5],
      [0, 10],
      [1, 5],
      [1, 10],
      [2, -5],
      [2, 0],
    ]);
  });

  it("aligns windows to startMs modulo the slide", () => {
    expect(pairs([2, 3, 12, 13], { sizeMs: 10, slideMs: 10, startMs: 3 })).toEqual([
      [0, -7],
      [1, 3],
      [2, 3],
      [3, 13],
    ]);
    // A start offset larger than the slide means the same as its remainder.
    expect(pairs([2, 3], { sizeMs: 10, slideMs: 10, startMs: 23 })).toEqual(pairs([2, 3], { sizeMs: 10, slideMs: 10, startMs: 3 }));
  });

  it("handles negative times (before 1970) without an off-by-one window", () => {
    expect(lastWindowStart(-1, 10, 0)).toBe(-10);
    expect(lastWindowStart(-10, 10, 0)).toBe(-10);
    expect(lastWindowStart(-11, 10, 0)).toBe(-20);
    expect(pairs([-1, -10, -11], { sizeMs: 10, slideMs: 10, startMs: 0 })).toEqual([
      [0, -10],
      [1, -10],
      [2, -20],
    ]);
    expect(pairs([-3], { sizeMs: 10, slideMs: 5, startMs: 0 })).toEqual([
      [0, -10],
      [0, -5],
    ]);
  });

  it("skips rows whose time is null and handles a size that is not a multiple of the slide", () => {
    expect(pairs([5, 99, 7], { sizeMs: 10, slideMs: 10, startMs: 0 }, Uint8Array.of(1, 0, 1))).toEqual([
      [0, 0],
      [2, 0],
    ]);
    // size 7, slide 3: windows ..., [0, 7), [3, 10), [6, 13): t = 6 is in all three.
    expect(pairs([6, 9], { sizeMs: 7, slideMs: 3, startMs: 0 })).toEqual([
      [0, 0],
      [0, 3],
      [0, 6],
      [1, 3],
      [1, 6],
      [1, 9],
    ]);
  });

  it("applies the late rule: at or before the watermark is late, null (NaN) never", () => {
    expect([isLate(10, 10), isLate(11, 10), isLate(5, null), isLate(NaN, 10)]).toEqual([true, false, false, false]);
  });
});

describe("sessionize", () => {
  it("merges a key's events whose gap windows overlap or touch, keys apart", () => {
    // key 0: 1, 5 (within gap 5), 10 (touches 5 + 5), 20 (new session); key 1: 3.
    const groupOf = Int32Array.of(0, 1, 0, 0, 0);
    const times = Float64Array.of(10, 3, 1, 20, 5);
    const s = sessionize(groupOf, times, 5);
    expect(s.count).toBe(3);
    expect(Array.from(s.starts)).toEqual([1, 20, 3]);
    expect(Array.from(s.ends)).toEqual([15, 25, 8]);
    expect(Array.from(s.order)).toEqual([2, 4, 0, 3, 1]);
    expect(Array.from(s.sessionOf)).toEqual([0, 0, 0, 1, 2]);
    expect(Array.from(s.firstEntry)).toEqual([0, 3, 4]);
  });
});
