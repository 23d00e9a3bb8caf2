import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { aggregateLayout } from "../operators/aggregate-layout.js";
import { DeduplicateExec } from "../operators/deduplicate-exec.js";
import { aggregateRunner, aggregateSpec, batchOf, field, plainRows, testContext } from "../operators/test-support.js";
import { providerFixture } from "./provider-fixture.js";
import { InMemoryStateStoreProvider } from "./in-memory-provider.js";
import { KIND, SCHEMA, applyVersion, rowsOf, stateFiles, tableRows, tempFiles } from "./test-support.js";

const { temp, openProvider, closeProviders, shard } = providerFixture();

/** Sessions per user (gap 10 ms): count, the greatest page, the lowest value; evicted by the watermark in update mode. */
const sessions = aggregateSpec({
  keys: [field("user", "string")],
  window: { kind: "session", gapMs: 10 },
  aggs: [
    { fn: "count", input: -1, name: "n" },
    { fn: "max", input: 2, name: "top_page", type: "string" },
    { fn: "min", input: 3, name: "low", type: "float64" },
  ],
  eventTimeKey: "window",
});
const clicks = (rows: [string | null, number, string | null, number | null][]) =>
  batchOf(
    [field("user", "string"), field("t", "timestamp"), field("page", "string"), field("v", "float64")],
    rows.map(([user, t, page, v]) => ({ user, t, page, v })),
  );
/** Micro-batches and their watermarks: merges, nulls, strings, and evictions as the watermark passes sessions. */
const BATCHES: [Parameters<typeof clicks>[0], number | null][] = [
  [[["u", 0, "a", 1.5], [null, 3, null, null], ["v", 5, "b", 2]], null],
  [[["u", 8, "c", -1], ["w", 20, "x", 0]], null],
  [[["u", 40, "d", 3]], 15],
  [[["w", 25, null, null], ["u", 45, "e", null]], 30],
  [[], 100],
  [[["z", 200, "zz", 9]], 100],
];
const SESSION_KIND = "sessionWindowStateStoreSave";

describe("recovery in a new provider", () => {
  it("loads every version of a session aggregation exactly as it was committed: strings, nulls, merges, evictions", async () => {
    const provider = openProvider({ minDeltasForSnapshot: 2 });
    const run = aggregateRunner(sessions, "update", provider.load(0, 0));
    const committed: ReturnType<typeof tableRows>[] = [{}];
    const removed: number[] = [];
    for (const [rows, watermark] of BATCHES) {
      removed.push(run.batch([clicks(rows)], watermark).metrics.numRowsRemoved);
      committed.push(tableRows(run.store.table));
      await provider.flush();
    }
    expect(removed).toEqual([0, 0, 2, 1, 2, 0]);
    expect(stateFiles(shard())).toEqual(["1.delta", "2.delta", "2.snapshot", "3.delta", "4.delta", "4.snapshot", "5.delta", "6.delta", "6.snapshot"]);
    const restarted = openProvider();
    const schema = aggregateLayout(sessions).stateSchema;
    for (let v = 1; v <= BATCHES.length; v++) expect(tableRows(restarted.load(0, v).open(schema, SESSION_KIND))).toEqual(committed[v]);
  });

  it("a query restarted on the state gives the output of one that ran straight through", async () => {
    const straight = aggregateRunner(sessions, "update", new InMemoryStateStoreProvider().load(0, 0));
    const expected = BATCHES.map(([rows, watermark]) => straight.batch([clicks(rows)], watermark).rows);
    for (const stopAfter of [1, 3, 4]) {
      await closeProviders();
      temp.remove();
      const first = openProvider({ minDeltasForSnapshot: 2 });
      const before = aggregateRunner(sessions, "update", first.load(0, 0));
      const output = BATCHES.slice(0, stopAfter).map(([rows, watermark]) => before.batch([clicks(rows)], watermark).rows);
      await first.durable();
      const after = aggregateRunner(sessions, "update", openProvider({ minDeltasForSnapshot: 2 }).load(0, stopAfter));
      output.push(...BATCHES.slice(stopAfter).map(([rows, watermark]) => after.batch([clicks(rows)], watermark).rows));
      expect(output).toEqual(expected);
    }
  });

  it("loads every version of a deduplication that forgets keys as the watermark passes them", async () => {
    const fields = [field("id", "string"), field("t", "timestamp")];
    const spec = { op: "deduplicate" as const, operatorId: 0, keyColumns: ["id", "t"], eventTimeColumn: "t", withinWatermarkDelayMs: null, inputFields: fields };
    const rows = (r: [string | null, number][]) => batchOf(fields, r.map(([id, t]) => ({ id, t })));
    const provider = openProvider({ minDeltasForSnapshot: 2 });
    const exec = new DeduplicateExec(0, spec);
    const ctx = testContext({ store: provider.load(0, 0), mode: "append" });
    exec.open(ctx);
    const inputs: [[string | null, number][], number | null][] = [
      [[["a", 10], ["a", 10], [null, 12], ["b", 30]], null],
      [[["a", 10], ["c", 40]], 15],
      [[["d", 50], [null, 60]], 35],
    ];
    const committed: ReturnType<typeof tableRows>[] = [{}];
    const outputs: [(string | null)[], number][] = [];
    for (const [i, [input, watermark]] of inputs.entries()) {
      ctx.batch = { ...ctx.batch, watermarkMs: watermark, watermarkForLateEventsMs: watermark };
      const out = plainRows(exec.process(rows(input))).map((r) => r.id as string | null);
      exec.onWatermark(watermark);
      exec.commit(i + 1);
      await provider.durable();
      const { numRowsRemoved } = exec.lastMetrics()!;
      committed.push(tableRows(openProvider().load(0, i + 1).open([{ name: "#eventTime", kind: "f64" }], "dedupe")));
      outputs.push([out, numRowsRemoved]);
    }
    expect(outputs).toEqual([
      [["a", null, "b"], 0],
      [["c"], 2],
      [["d", null], 1],
    ]);
    // Each key's one value is its event time (keys are encoded words, so they sort differently).
    expect(committed.map((c) => Object.values(c).flat().sort())).toEqual([[], [10, 12, 30], [30, 40], [40, 50, 60]]);
  });
});

const CHILD = fileURLToPath(new URL("./testing/crash-writer.ts", import.meta.url));

/** Runs the crash writer in a child process; `crashAt` is SLUICE_CRASH_AT. */
function runChild(crashAt: string | null, versions: number, minDeltasForSnapshot: number) {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.SLUICE_CRASH_AT;
  if (crashAt !== null) env.SLUICE_CRASH_AT = crashAt;
  const child = spawnSync(process.execPath, ["--import", "tsx", CHILD, temp.dir, String(versions), String(minDeltasForSnapshot)], {
    env,
    encoding: "utf8",
    timeout: 60_000,
  });
  return { signal: child.signal, status: child.status, stdout: child.stdout, stderr: child.stderr };
}

/** Each version's rows when the workload runs straight through, in memory. */
function expectedRows(versions: number) {
  const store = new InMemoryStateStoreProvider().load(0, 0);
  const table = store.open(SCHEMA, KIND);
  const rows = [rowsOf(table)];
  for (let v = 1; v <= versions; v++) {
    applyVersion(table, v);
    store.commit(v);
    rows.push(rowsOf(table));
  }
  return rows;
}

describe("a process killed while it writes state", () => {
  it("runs to the end without a crash point", () => {
    expect(runChild(null, 2, 3)).toEqual({ signal: null, status: 0, stdout: "DONE\n", stderr: "" });
    expect(stateFiles(shard())).toEqual(["1.delta", "2.delta"]);
  });

  it("in the middle of a snapshot: the versions before load, and the query goes on from them", async () => {
    expect(runChild("stateSnapshot:6", 8, 3)).toEqual({ signal: "SIGKILL", status: null, stdout: "", stderr: "SLUICE_CRASHED stateSnapshot 6\n" });
    expect(stateFiles(shard())).toEqual(["1.delta", "2.delta", "3.delta", "3.snapshot", "4.delta", "5.delta", "6.delta"]);
    expect(tempFiles(shard())).toEqual([expect.stringMatching(/^\.6\.snapshot\.\d+-[0-9a-f]{8}\.\d+\.tmp$/)]);
    const expected = expectedRows(8);
    const provider = openProvider({ minDeltasForSnapshot: 3 });
    expect(provider.latestVersion(0)).toBe(6);
    for (let v = 1; v <= 6; v++) expect(rowsOf(openProvider().load(0, v).open(SCHEMA, KIND))).toEqual(expected[v]);
    const store = provider.load(0, 6);
    const table = store.open(SCHEMA, KIND);
    for (const v of [7, 8]) {
      applyVersion(table, v);
      store.commit(v);
      await provider.flush();
      expect(rowsOf(openProvider().load(0, v).open(SCHEMA, KIND))).toEqual(expected[v]);
    }
    // Deltas 4..7 follow snapshot 3: the next snapshot is version 7's; the leftover temp file is gone.
    expect(stateFiles(shard())).toEqual(["1.delta", "2.delta", "3.delta", "3.snapshot", "4.delta", "5.delta", "6.delta", "7.delta", "7.snapshot", "8.delta"]);
    expect(tempFiles(shard())).toEqual([]);
  });

  it("in the middle of a delta: the version was never committed, and the batch commits it again", async () => {
    expect(runChild("stateDelta:5", 8, 3)).toEqual({ signal: "SIGKILL", status: null, stdout: "", stderr: "SLUICE_CRASHED stateDelta 5\n" });
    expect(stateFiles(shard())).toEqual(["1.delta", "2.delta", "3.delta", "3.snapshot", "4.delta"]);
    expect(tempFiles(shard())).toEqual([expect.stringMatching(/^\.5\.delta\..*\.tmp$/)]);
    const expected = expectedRows(6);
    const provider = openProvider({ minDeltasForSnapshot: 3 });
    expect(provider.latestVersion(0)).toBe(4);
    const store = provider.load(0, 4);
    const table = store.open(SCHEMA, KIND);
    expect(rowsOf(table)).toEqual(expected[4]);
    for (const v of [5, 6]) {
      applyVersion(table, v);
      store.commit(v);
    }
    await provider.flush();
    expect(rowsOf(openProvider().load(0, 6).open(SCHEMA, KIND))).toEqual(expected[6]);
    expect(stateFiles(shard())).toEqual(["1.delta", "2.delta", "3.delta", "3.snapshot", "4.delta", "5.delta", "6.delta", "6.snapshot"]);
    expect(tempFiles(shard())).toEqual([]);
  });
});
