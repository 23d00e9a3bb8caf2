import { describe, expect, it } from "vitest";
import { keepPairs, matchedProbeRows, PairList, rowsFlagged, withUnmatchedRows } from "./join-pairs.js";

const pairs = (probe: number[], build: number[]) => ({ probeRows: Int32Array.from(probe), buildRows: Int32Array.from(build), count: probe.length });
const listed = (m: { probeRows: Int32Array; buildRows: Int32Array; count: number }) => [...m.probeRows.subarray(0, m.count)].map((p, k) => [p, m.buildRows[k]]);

describe("join pair lists", () => {
  it("an outer join puts each probe row without a pair in its place, first and last rows included", () => {
    expect(listed(withUnmatchedRows(pairs([1, 1, 3], [7, 8, 9]), 5))).toEqual([[0, -1], [1, 7], [1, 8], [2, -1], [3, 9], [4, -1]]);
    expect(listed(withUnmatchedRows(pairs([], []), 2))).toEqual([[0, -1], [1, -1]]);
    expect(listed(withUnmatchedRows(pairs([0, 1], [5, 6]), 2))).toEqual([[0, 5], [1, 6]]);
  });

  it("keeps the selected pairs in order, and tells the probe rows with and without pairs apart", () => {
    const kept = keepPairs(pairs([0, 0, 2, 4, 4], [1, 2, 3, 4, 5]), Int32Array.of(1, 3));
    expect(listed(kept)).toEqual([[0, 2], [4, 4]]);
    const matched = matchedProbeRows(kept, 5);
    expect([...rowsFlagged(matched, 1)]).toEqual([0, 4]);
    expect([...rowsFlagged(matched, 0)]).toEqual([1, 2, 3]);
  });

  it("appends the pairs of several probes, growing as needed", () => {
    const list = new PairList();
    const big = pairs(Array.from({ length: 1500 }, (_, i) => i), Array.from({ length: 1500 }, (_, i) => -i));
    list.append(pairs([0], [3]));
    list.append(big);
    const all = list.matches();
    expect(all.count).toBe(1501);
    expect([all.probeRows[0], all.buildRows[0], all.probeRows[1500], all.buildRows[1500]]).toEqual([0, 3, 1499, -1499]);
  });
});
