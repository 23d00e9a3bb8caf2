import { describe, expect, it } from "vitest";
import { OptionError } from "../../errors/errors.js";
import { planFileSplits } from "./plan-splits.js";

describe("planFileSplits", () => {
  it("cuts each file into near-equal ranges of at most about the target size, and skips empty files", () => {
    const files = [
      { path: "/d/a.jsonl", size: 250 },
      { path: "/d/empty.jsonl", size: 0 },
      { path: "/d/b.jsonl", size: 100 },
      { path: "/d/c.jsonl", size: 7 },
    ];
    expect(planFileSplits(files, 100)).toEqual([
      { kind: "file", path: "/d/a.jsonl", start: 0, end: 83 },
      { kind: "file", path: "/d/a.jsonl", start: 83, end: 167 },
      { kind: "file", path: "/d/a.jsonl", start: 167, end: 250 },
      { kind: "file", path: "/d/b.jsonl", start: 0, end: 100 },
      { kind: "file", path: "/d/c.jsonl", start: 0, end: 7 },
    ]);
  });

  it("covers every byte of a file exactly once", () => {
    for (const [size, target] of [
      [1, 1],
      [1000, 3],
      [12_345_678, 1_000_000],
      [2 ** 40 + 17, 2 ** 27],
    ] as const) {
      const splits = planFileSplits([{ path: "/f", size }], target);
      expect(splits[0]!.start).toBe(0);
      expect(splits.at(-1)!.end).toBe(size);
      splits.forEach((s, i) => i > 0 && expect(s.start).toBe(splits[i - 1]!.end));
      expect(Math.max(...splits.map((s) => s.end - s.start))).toBeLessThanOrEqual(target);
    }
  });

  it("rejects a split size that is not a positive whole number", () => {
    expect(() => planFileSplits([], 0)).toThrow(OptionError);
    expect(() => planFileSplits([], 1.5)).toThrow("the target split size must be a positive whole number of bytes, got 1.5");
  });
});
