import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { CheckpointError } from "../errors/errors.js";
import { aggregateRunner, aggregateSpec, batchOf, field } from "../operators/test-support.js";
import { tempDir } from "../testing/temp-dir.js";
import { FileStateStoreProvider } from "./file-provider.js";

const spec = aggregateSpec({
  keys: [field("user", "string")],
  window: { kind: "session", gapMs: 10 },
  aggs: [
    { fn: "count", input: -1, name: "n" },
    { fn: "max", input: 2, name: "last_page", type: "string" },
    { fn: "min", input: 3, name: "low", type: "float64" },
  ],
  eventTimeKey: "window",
});
const clicks = (rows: [string | null, number, string | null, number | null][]) =>
  batchOf(
    [field("user", "string"), field("t", "timestamp"), field("page", "string"), field("v", "float64")],
    rows.map(([user, t, page, v]) => ({ user, t, page, v })),
  );

describe("FileStateStoreProvider", () => {
  const temp = tempDir("sluice-state-");
  afterEach(() => temp.remove());

  it("writes one snapshot per version and restores state, nulls and strings included, in a new provider", () => {
    const first = aggregateRunner(spec, "update", new FileStateStoreProvider(temp.dir).load(0, -1));
    first.batch([clicks([["u", 0, "a", 1.5], [null, 3, null, null]])], null); // version 0
    first.batch([clicks([["u", 20, "b", -2]])], null); // version 1
    expect(readdirSync(temp.path("state", "0", "0")).sort()).toEqual(["0.snapshot", "1.snapshot"]);
    const provider = new FileStateStoreProvider(temp.dir);
    expect(provider.latestVersion(0)).toBe(1);
    // A process restarted on the checkpoint: a bridging row merges u's sessions [0, 10) and [20, 30).
    const restarted = aggregateRunner(spec, "complete", provider.load(0, 1));
    expect(restarted.batch([clicks([["u", 10, null, null]])], null).rows).toEqual([
      { window: [0, 30], user: "u", n: 3, last_page: "b", low: -2 },
      { window: [3, 13], user: null, n: 1, last_page: null, low: null },
    ]);
  });

  it("keeps minBatchesToRetain snapshots and never overwrites a committed version", () => {
    const provider = new FileStateStoreProvider(temp.dir, { minBatchesToRetain: 2 });
    const run = aggregateRunner(spec, "update", provider.load(3, -1, 1));
    for (let b = 0; b < 4; b++) run.batch([clicks([["u", b * 100, "p", b]])], null);
    expect(readdirSync(temp.path("state", "3", "1")).sort()).toEqual(["2.snapshot", "3.snapshot"]);
    expect(() => provider.load(3, 1, 1)).toThrow(CheckpointError);
    // Re-running batch 3 from version 2 commits 3 again: the existing file stays as it is.
    const before = readdirSync(temp.path("state", "3", "1"));
    const rerun = aggregateRunner(spec, "update", new FileStateStoreProvider(temp.dir).load(3, 2, 1));
    expect(rerun.batch([clicks([["u", 300, "p", 3]])], null).rows).toEqual([{ window: [300, 310], user: "u", n: 1, last_page: "p", low: 3 }]);
    expect(readdirSync(temp.path("state", "3", "1"))).toEqual(before);
  });

  it("reports a corrupt snapshot by file name", () => {
    const run = aggregateRunner(spec, "update", new FileStateStoreProvider(temp.dir).load(0, -1));
    run.batch([clicks([["u", 0, "a", 1]])], null);
    const file = temp.path("state", "0", "0", "0.snapshot");
    expect(existsSync(file)).toBe(true);
    writeFileSync(file, "not arrow");
    expect(() => new FileStateStoreProvider(temp.dir).load(0, 0).open([])).toThrow(/state snapshot .*0\.snapshot/);
  });
});
