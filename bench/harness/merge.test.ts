/**
 * What a part of a full bench run keeps of the earlier parts: a run done in several invocations
 * must publish the same medians as one invocation would, and never mix measurements of a
 * different input or ladder into a figure.
 */
import { describe, expect, it } from "vitest";
import type { DrainResult } from "./drain.js";
import type { LatencyResult } from "./latency.js";
import { keptRuns, nextRep, repetitions, type Invocation } from "./merge.js";
import { sluiceBuilds, type WorkloadRun } from "./report.js";
import type { VariantId } from "./variants.js";

const OLD_BUILD = "0.1.0 (commit aaaaaaa)";
const NEW_BUILD = "0.1.0 (commit bbbbbbb)";

const SPAN_MS = 111_500;

const drain = (system: VariantId, rep: number, build?: string, spanMs: number | null = SPAN_MS): DrainResult => ({
  system,
  rep,
  status: "ok",
  inputRecords: 1_000,
  seconds: 1,
  recordsPerSecond: 1_000,
  cpuSeconds: 1,
  recordsPerCpuSecond: 1_000,
  peakRssMiB: 1,
  outputRows: 10,
  brokerCpuSeconds: 1,
  ...(build === undefined ? {} : { build }),
  ...(spanMs === null ? {} : { spanMs }),
});
const latency = (system: VariantId, rep: number, build?: string): LatencyResult => ({ system, rep, status: "ok", steps: [], sustainableRate: 0, ...(build === undefined ? {} : { build }) });

const results = (o: { drain?: DrainResult[]; latency?: LatencyResult[]; records?: number; rates?: number[]; sluiceByPhase?: WorkloadRun["sluiceByPhase"] }): WorkloadRun => ({
  workload: "W1",
  title: "",
  finishedAt: "",
  environment: { machine: "", versions: { Sluice: OLD_BUILD } },
  config: { records: o.records ?? 1_000, reps: 2, rates: o.rates ?? [10_000, 50_000], stepSeconds: 50, order: "" },
  ...(o.sluiceByPhase ? { sluiceByPhase: o.sluiceByPhase } : {}),
  drain: o.drain ?? [],
  latency: o.latency ?? [],
  summary: [],
  commonRate: null,
});

const invocation = (o: Partial<Invocation>): Invocation => ({
  systems: ["sluice:default"],
  phases: ["drain", "latency"],
  records: 1_000,
  producer: "sluice",
  spanMs: SPAN_MS,
  rates: [10_000, 50_000],
  stepSeconds: 50,
  feedTickMs: 50,
  addReps: false,
  dropIncomparable: false,
  ...o,
});

const ids = (runs: readonly { system: string; rep: number }[]) => runs.map((r) => `${r.system} ${r.rep}`);

describe("keptRuns", () => {
  const earlier = results({
    drain: [drain("sluice:default", 1), drain("kstreams:default", 1), drain("sluice:default", 2), drain("kstreams:default", 2)],
    latency: [latency("sluice:default", 1), latency("kstreams:default", 1)],
  });

  it("keeps nothing without earlier results", () => {
    expect(keptRuns(null, invocation({}))).toEqual({ drain: [], latency: [], dropped: [], conflicts: [] });
  });

  it("replaces the runs of the variants it runs and keeps every other variant's", () => {
    const kept = keptRuns(earlier, invocation({ systems: ["sluice:default"] }));
    expect(ids(kept.drain)).toEqual(["kstreams:default 1", "kstreams:default 2"]);
    expect(ids(kept.latency)).toEqual(["kstreams:default 1"]);
  });

  it("keeps a phase it does not run whole", () => {
    const kept = keptRuns(earlier, invocation({ phases: ["latency"] }));
    expect(ids(kept.drain)).toEqual(["sluice:default 1", "kstreams:default 1", "sluice:default 2", "kstreams:default 2"]);
    expect(ids(kept.latency)).toEqual(["kstreams:default 1"]);
  });

  it("with addReps keeps the runs of the variants it runs, so their repetitions add up", () => {
    const kept = keptRuns(earlier, invocation({ addReps: true }));
    expect(ids(kept.drain)).toEqual(["sluice:default 1", "kstreams:default 1", "sluice:default 2", "kstreams:default 2"]);
    expect(nextRep(kept.drain, "sluice:default")).toBe(3);
    expect(nextRep(kept.drain, "kstreams:throughput")).toBe(1);
  });

  it("refuses to lose runs of another input or ladder that it does not replace, naming the flags that keep them", () => {
    const kept = keptRuns(earlier, invocation({ records: 2_000, rates: [10_000], addReps: true }));
    expect(kept.drain).toEqual([]);
    expect(kept.latency).toEqual([]);
    expect(kept.dropped).toEqual([]);
    expect(kept.conflicts).toEqual([
      "the earlier drain runs of sluice:default, kstreams:default were taken with 1000 records, sluice producer, 111.5 s of event time: pass --records 1000 --producer sluice to keep them; pass --drop-incomparable yes to drop them",
      "the earlier latency runs of sluice:default, kstreams:default were taken with rates 10000,50000, 50 s steps, 50 ms feed ticks: pass --rates 10000,50000 --step-seconds 50 to keep them; pass --drop-incomparable yes to drop them",
    ]);
    // Without addReps only the variants it does not run are at stake.
    expect(keptRuns(earlier, invocation({ rates: [10_000], phases: ["latency"] })).conflicts).toEqual([
      "the earlier latency runs of kstreams:default were taken with rates 10000,50000, 50 s steps, 50 ms feed ticks: pass --rates 10000,50000 --step-seconds 50 to keep them; pass --drop-incomparable yes to drop them",
    ]);
  });

  it("drops runs of another input or ladder when told to, or when it replaces every one of them, and says why", () => {
    const told = keptRuns(earlier, invocation({ records: 2_000, rates: [10_000], addReps: true, dropIncomparable: true }));
    expect([told.drain, told.latency, told.conflicts]).toEqual([[], [], []]);
    expect(told.dropped).toEqual([
      "previous drain figures (1000 records, sluice producer, 111.5 s of event time) dropped: this run's input differs",
      "previous latency figures (rates 10000,50000, 50 s steps, 50 ms feed ticks) dropped: this run's ladder differs",
    ]);
    const replaced = keptRuns(earlier, invocation({ systems: ["sluice:default", "kstreams:default"], rates: [10_000] }));
    expect([replaced.latency, replaced.conflicts]).toEqual([[], []]);
    expect(replaced.dropped).toEqual(["previous latency figures (rates 10000,50000, 50 s steps, 50 ms feed ticks) dropped: this run's ladder differs"]);
  });

  it("counts latency runs recorded without a feed tick as fed every 50 ms, and no flag keeps them for a finer feed", () => {
    expect(ids(keptRuns(earlier, invocation({ systems: ["sluice:default"] })).latency)).toEqual(["kstreams:default 1"]);
    const kept = keptRuns(earlier, invocation({ feedTickMs: 5, addReps: true }));
    expect(kept.latency).toEqual([]);
    expect(kept.drain).toHaveLength(4);
    expect(kept.conflicts).toEqual([
      "the earlier latency runs of sluice:default, kstreams:default were taken with rates 10000,50000, 50 s steps, 50 ms feed ticks: the workload's feed now ticks every 5 ms, so no flag keeps them; pass --drop-incomparable yes to drop them",
    ]);
  });

  it("tells inputs apart by their event-time span too: runs of another span are kept by no flag", () => {
    const mixed = results({
      drain: [drain("sluice:default", 1, OLD_BUILD, 31_500), drain("kstreams:default", 1, OLD_BUILD, 31_500), drain("sluice:default", 2), drain("naive:eachMessage", 1, OLD_BUILD, null)],
    });
    const kept = keptRuns(mixed, invocation({ phases: ["drain"], addReps: true }));
    expect(ids(kept.drain)).toEqual(["sluice:default 2"]);
    expect(kept.conflicts).toEqual([
      "the earlier drain runs of sluice:default, kstreams:default were taken with 1000 records, sluice producer, 31.5 s of event time: the drain input now spans 111.5 s, so no flag keeps them; pass --drop-incomparable yes to drop them",
      "the earlier drain runs of naive:eachMessage were taken with 1000 records, sluice producer, an event-time span not recorded: the drain input now spans 111.5 s, so no flag keeps them; pass --drop-incomparable yes to drop them",
    ]);
    const told = keptRuns(mixed, invocation({ phases: ["drain"], addReps: true, dropIncomparable: true }));
    expect([ids(told.drain), told.conflicts]).toEqual([["sluice:default 2"], []]);
    expect(told.dropped).toEqual([
      "previous drain figures (1000 records, sluice producer, 31.5 s of event time) dropped: this run's input differs",
      "previous drain figures (1000 records, sluice producer, an event-time span not recorded) dropped: this run's input differs",
    ]);
    // Replacing a variant's runs replaces those of the older span with them; the others' still count.
    expect(keptRuns(mixed, invocation({ phases: ["drain"], systems: ["sluice:default", "naive:eachMessage"] })).conflicts).toEqual([
      "the earlier drain runs of kstreams:default were taken with 1000 records, sluice producer, 31.5 s of event time: the drain input now spans 111.5 s, so no flag keeps them; pass --drop-incomparable yes to drop them",
    ]);
  });

  it("keeps runs of another input when their phase does not run", () => {
    const kept = keptRuns(earlier, invocation({ records: 2_000, phases: ["latency"] }));
    expect(kept.drain).toHaveLength(4);
    expect(kept.dropped).toEqual([]);
  });

  it("stamps runs written before runs carried a build with the build their file names for the phase", () => {
    const old = results({ drain: [drain("sluice:default", 1), drain("sluice:default", 2, NEW_BUILD)], latency: [latency("sluice:default", 1)], sluiceByPhase: { latency: "0.0.9 (commit 9999999)" } });
    const kept = keptRuns(old, invocation({ systems: ["kstreams:default"] }));
    expect(kept.drain.map((d) => d.build)).toEqual([OLD_BUILD, NEW_BUILD]);
    expect(kept.latency.map((l) => l.build)).toEqual(["0.0.9 (commit 9999999)"]);
  });
});

describe("repetitions", () => {
  it("is the most runs any variant has in either phase", () => {
    expect(repetitions([drain("sluice:default", 1), drain("sluice:default", 2), drain("spark:default", 1)], [latency("sluice:default", 1)])).toBe(2);
    expect(repetitions([], [])).toBe(0);
  });
});

describe("sluiceBuilds over runs from several builds", () => {
  it("names every build the Sluice runs of a phase ran on; peers' builds do not count", () => {
    const run = results({
      drain: [drain("sluice:default", 1, OLD_BUILD), drain("sluice:default", 2, NEW_BUILD), drain("kstreams:default", 1, "0.0.1 (commit 0000000)")],
      latency: [latency("sluice:default", 1, NEW_BUILD)],
    });
    expect(sluiceBuilds(run)).toBe(`Sluice ${OLD_BUILD} and ${NEW_BUILD} for the drain, ${NEW_BUILD} for latency`);
  });

  it("names one build when every Sluice run ran on it", () => {
    expect(sluiceBuilds(results({ drain: [drain("sluice:default", 1, NEW_BUILD)], latency: [latency("sluice:target-200ms", 1, NEW_BUILD)] }))).toBe(`Sluice ${NEW_BUILD}`);
  });
});
