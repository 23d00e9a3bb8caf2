import { describe, expect, it } from "vitest";
import { lagMetrics, limitByBacklog, splitRanges } from "./offset-ranges.js";

const tp = (partition: number) => ({ topic: "t", partition });
const m = (...pairs: [number, number][]) => new Map(pairs.map(([p, o]) => [`t-${p}`, o]));

describe("maxOffsetsPerTrigger", () => {
  it("shares the limit among partitions in proportion to their backlog", () => {
    expect(limitByBacklog([tp(0), tp(1)], m([0, 0], [1, 100]), m([0, 300], [1, 200]), 100)).toEqual(m([0, 75], [1, 125]));
  });
  it("lets a partition with a tiny backlog advance by one", () => {
    expect(limitByBacklog([tp(0), tp(1)], m([0, 0], [1, 0]), m([0, 1000], [1, 1]), 10)).toEqual(m([0, 9], [1, 1]));
  });
  it("takes everything when the backlog fits", () => {
    expect(limitByBacklog([tp(0), tp(1)], m([0, 5], [1, 5]), m([0, 8], [1, 9]), 100)).toEqual(m([0, 8], [1, 9]));
  });
});

describe("minPartitions", () => {
  it("cuts large ranges into parts in proportion to their size", () => {
    const ranges = [
      { topic: "t", partition: 0, start: 0, end: 300 },
      { topic: "t", partition: 1, start: 0, end: 100 },
    ];
    expect(splitRanges(ranges, 4)).toEqual([
      { topic: "t", partition: 0, start: 0, end: 100 },
      { topic: "t", partition: 0, start: 100, end: 200 },
      { topic: "t", partition: 0, start: 200, end: 300 },
      { topic: "t", partition: 1, start: 0, end: 100 },
    ]);
  });
  it("keeps one task per partition when there are enough, and drops empty ranges", () => {
    const ranges = [
      { topic: "t", partition: 0, start: 0, end: 3 },
      { topic: "t", partition: 1, start: 7, end: 7 },
    ];
    expect(splitRanges(ranges, undefined)).toEqual([{ topic: "t", partition: 0, start: 0, end: 3 }]);
  });
});

describe("lag metrics", () => {
  it("reports min, max and average offsets behind latest", () => {
    expect(lagMetrics(m([0, 10], [1, 20]), m([0, 10], [1, 30]))).toEqual({ minOffsetsBehindLatest: "0", maxOffsetsBehindLatest: "10", avgOffsetsBehindLatest: "5" });
  });
});
