/**
 * The systems under test and their variants: each system at its defaults and as its experts
 * would tune it, named `system:variant` (bench/peers/README.md says what each variant sets).
 * `--systems` takes a system (all its variants), a `system:variant`, or `all`; a
 * `maxOffsetsPerTrigger` sweep point is `spark:mopt-<n>` or `sluice:mopt-<n>` for any positive n,
 * and a Sluice latency target `sluice:target-<n>ms`.
 */
import type { WorkloadName } from "./workloads.js";

export type SystemName = "sluice" | "spark" | "kstreams" | "naive";
export const SYSTEMS: readonly SystemName[] = ["sluice", "spark", "kstreams", "naive"];

/** `system:variant`, the name of one row of the results. */
export type VariantId = `${SystemName}:${string}`;

interface VariantDef {
  readonly name: string;
  /** The workloads the variant applies to; all when absent (Spark's real-time mode runs stateless queries only). */
  readonly workloads?: readonly WorkloadName[];
  /** What it sets, for the results' legend. */
  readonly sets: string;
}

/** The `maxOffsetsPerTrigger` values `spark` (all its variants) sweeps. */
export const SPARK_MOPT_SWEEP: readonly number[] = [500_000, 2_000_000];

const moptSets = (n: number) => `tuned, and maxOffsetsPerTrigger ${n.toLocaleString("en-US")}`;

export const VARIANTS: Readonly<Record<SystemName, readonly VariantDef[]>> = {
  sluice: [
    { name: "default", sets: "2 workers, maxOffsetsPerTrigger 1,000,000, default trigger" },
    { name: "target-200ms", sets: 'trigger({ latencyTarget: "200 ms" }): batches sized by Sluice from measured durations (maxOffsetsPerTrigger 1,000,000 as the upper bound)' },
    { name: "realtime", workloads: ["W4"], sets: 'trigger({ realTime: "5 minutes" }), update mode: long-running tasks per worker read records as they arrive' },
  ],
  spark: [
    { name: "default", sets: "local[2], shuffle partitions 2, defaults otherwise" },
    { name: "tuned", sets: "Kafka sink linger.ms 20 and batch.size 512 KiB; RocksDB state store with changelog checkpointing on W2 and W3" },
    ...SPARK_MOPT_SWEEP.map((n) => ({ name: `mopt-${n}`, sets: moptSets(n) })),
    { name: "realtime", workloads: ["W4"], sets: "tuned sink, Trigger.RealTime(5 minutes), update mode, local[4] (a task slot per input partition)" },
  ],
  kstreams: [
    { name: "default", sets: "defaults (1 thread, 10 MB cache, 30 s commit; 100 ms commit in drains)" },
    { name: "throughput", sets: "record cache 256 MiB (W3: 1 GiB), heap -Xms/-Xmx 2 GiB (W3: 3 GiB), 1 s commit (100 ms in drains), producer batch.size 256 KiB" },
    { name: "latency", sets: "cache off, 50 ms commit, producer linger.ms 0" },
  ],
  naive: [
    { name: "eachMessage", sets: "kafkajs eachMessage, record at a time" },
    { name: "eachBatch", sets: "kafkajs eachBatch, a fetched batch at a time" },
  ],
};

export const systemOf = (id: VariantId): SystemName => id.slice(0, id.indexOf(":")) as SystemName;
export const variantOf = (id: string): string => id.slice(id.indexOf(":") + 1);

/** A Sluice latency target `target-<n>ms` parsed, or null. */
export function targetValue(variant: string): number | null {
  const m = /^target-([1-9][0-9]*)ms$/.exec(variant);
  return m ? Number(m[1]) : null;
}

/** A sweep point `mopt-<n>` parsed, or null. */
export function moptValue(variant: string): number | null {
  const m = /^mopt-([1-9][0-9]*)$/.exec(variant);
  return m ? Number(m[1]) : null;
}

function definition(id: VariantId): VariantDef | undefined {
  const system = systemOf(id);
  const name = variantOf(id);
  const known = VARIANTS[system].find((v) => v.name === name);
  if (known) return known;
  const n = system === "spark" || system === "sluice" ? moptValue(name) : null;
  if (n !== null) return { name, sets: system === "spark" ? moptSets(n) : `2 workers, default trigger, fixed batches: maxOffsetsPerTrigger ${n.toLocaleString("en-US")}` };
  const target = system === "sluice" ? targetValue(name) : null;
  return target === null ? undefined : { name, sets: `trigger({ latencyTarget: "${target} ms" }) (maxOffsetsPerTrigger 1,000,000 as the upper bound)` };
}

/** What a variant sets, for the legend. */
export const variantSets = (id: VariantId): string => definition(id)?.sets ?? "?";

/** Whether a variant runs a workload (Spark's real-time mode allows stateless queries only). */
export function appliesTo(id: VariantId, workload: WorkloadName): boolean {
  const w = definition(id)?.workloads;
  return w === undefined || w.includes(workload);
}

/**
 * `--systems`: comma-separated systems (each meaning all its variants), `system:variant`s, or
 * `all`; in the order given, without repeats. Throws a message naming what is unknown.
 */
export function parseSystems(text: string): VariantId[] {
  const out: VariantId[] = [];
  const add = (id: VariantId) => {
    if (!out.includes(id)) out.push(id);
  };
  for (const item of text.split(",").map((s) => s.trim()).filter(Boolean)) {
    if (item === "all") {
      for (const s of SYSTEMS) for (const v of VARIANTS[s]) add(`${s}:${v.name}`);
      continue;
    }
    const [system, variant, ...rest] = item.split(":");
    if (!SYSTEMS.includes(system as SystemName) || rest.length > 0) throw new Error(`unknown system "${item}": use ${SYSTEMS.join(", ")}, system:variant or all`);
    const s = system as SystemName;
    if (variant === undefined) {
      for (const v of VARIANTS[s]) add(`${s}:${v.name}`);
      continue;
    }
    const id: VariantId = `${s}:${variant}`;
    if (!definition(id)) {
      const names = VARIANTS[s].map((v) => v.name).concat(s === "spark" ? ["mopt-<n>"] : s === "sluice" ? ["mopt-<n>", "target-<n>ms"] : []);
      throw new Error(`unknown variant "${item}": ${s} has ${names.join(", ")}`);
    }
    add(id);
  }
  if (out.length === 0) throw new Error("no system given: use sluice, spark, kstreams, naive, system:variant or all");
  return out;
}

/**
 * Results written before systems had variants name the system alone: that was its default
 * (the kafkajs loop's was eachMessage).
 */
export function normalizeId(id: string): VariantId {
  if (id.includes(":")) return id as VariantId;
  return `${id as SystemName}:${VARIANTS[id as SystemName]?.[0]?.name ?? "default"}`;
}
