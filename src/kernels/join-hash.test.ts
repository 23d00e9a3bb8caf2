import { describe, expect, it } from "vitest";
import { buildJoinHashTable, hashKeys, probeHasMatch, probeJoinHashTable, type JoinMatches } from "./join-hash.js";
import type { KeyColumn } from "./join-hash-keys.js";

const numbers = (...values: (number | null)[]): KeyColumn => ({
  kind: "number",
  values: Float64Array.from(values, (v) => v ?? 0),
  residuals: null,
  valid: values.includes(null) ? Uint8Array.from(values, (v) => (v === null ? 0 : 1)) : null,
});
const listed = (m: JoinMatches) => [...m.probeRows.subarray(0, m.count)].map((p, k) => [p, m.buildRows[k]]);
const table = (keys: KeyColumn[], n: number) => buildJoinHashTable(keys, n, (length) => new Int32Array(length));

describe("join hash table probes", () => {
  const build = [numbers(1, 2, 1, null)];
  const hash = table(build, 4);
  const probe = [numbers(2, 1, 3, null, 1)];
  const hashed = hashKeys(probe, 5);

  it("probe a range of rows, matches in build insertion order, unmatched rows kept with -1 when asked", () => {
    expect(listed(probeJoinHashTable(hash, build, probe, hashed, 1, 4, false))).toEqual([[1, 0], [1, 2]]);
    expect(listed(probeJoinHashTable(hash, build, probe, hashed, 0, 5, true))).toEqual([[0, 1], [1, 0], [1, 2], [2, -1], [3, -1], [4, 0], [4, 2]]);
  });

  it("leave out the rows the caller marks unusable, and say per row whether any key matches", () => {
    const some = { hashes: hashed.hashes, usable: Uint8Array.of(1, 0, 1, 1, 1) };
    expect(listed(probeJoinHashTable(hash, build, probe, some, 0, 5, false))).toEqual([[0, 1], [4, 0], [4, 2]]);
    expect([...probeHasMatch(hash, build, probe, some, 5)]).toEqual([1, 0, 0, 0, 1]);
  });

  it("without keys, pair every probe row with every build row (a nested loop)", () => {
    const none = table([], 3);
    expect(listed(probeJoinHashTable(none, [], [], hashKeys([], 2), 0, 2, false))).toEqual([[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2]]);
    expect([...probeHasMatch(table([], 0), [], [], hashKeys([], 2), 2)]).toEqual([0, 0]);
  });
});
