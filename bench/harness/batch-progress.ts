/**
 * Sluice's job reports each micro-batch on stderr as `BENCH_PROGRESS <json>`: the latency curve
 * (bench/latency-curve.ts) reads from them how big the batches of each rate step were, and under a
 * latencyTarget trigger the size Sluice chose. Peers print no such lines.
 */
import { median } from "./stats.js";

export const BENCH_PROGRESS = "BENCH_PROGRESS";

export interface BenchProgress {
  /** When the batch ended (its progress timestamp is its start), epoch milliseconds. */
  readonly endMs: number;
  readonly batchId: number;
  readonly rows: number;
  readonly durationMs: number;
  /** Under a latencyTarget trigger: the most rows Sluice let the batch read, and its sizing mode. */
  readonly maxRowsPerBatch?: number;
  readonly mode?: string;
}

/** The line's progress, or null when it is not a progress line (or not one this version wrote). */
export function parseProgressLine(line: string): BenchProgress | null {
  if (!line.startsWith(`${BENCH_PROGRESS} `)) return null;
  try {
    const p = JSON.parse(line.slice(BENCH_PROGRESS.length + 1)) as BenchProgress;
    return typeof p.endMs === "number" && typeof p.rows === "number" && typeof p.durationMs === "number" ? p : null;
  } catch {
    return null;
  }
}

/** The batches of one rate step, in medians: how many rows each read, how long each took, the size Sluice chose. */
export interface StepBatches {
  readonly batches: number;
  readonly medianRows: number;
  readonly medianDurationMs: number;
  /** The median of the latencyTarget trigger's chosen maxRowsPerBatch; absent under other triggers. */
  readonly medianMaxRows?: number;
  /** The sizing modes seen, most frequent first. */
  readonly modes?: readonly string[];
}

/** The batches that ended within [from, to], summarized; null when none did. */
export function stepBatches(progress: readonly BenchProgress[], from: number, to: number): StepBatches | null {
  const inStep = progress.filter((p) => p.endMs >= from && p.endMs <= to && p.rows > 0);
  if (inStep.length === 0) return null;
  const sized = inStep.filter((p) => p.maxRowsPerBatch !== undefined);
  const modeCounts = new Map<string, number>();
  for (const p of sized) if (p.mode) modeCounts.set(p.mode, (modeCounts.get(p.mode) ?? 0) + 1);
  return {
    batches: inStep.length,
    medianRows: median(inStep.map((p) => p.rows)),
    medianDurationMs: median(inStep.map((p) => p.durationMs)),
    ...(sized.length > 0
      ? {
          medianMaxRows: median(sized.map((p) => p.maxRowsPerBatch!)),
          modes: [...modeCounts.entries()].sort((a, b) => b[1] - a[1]).map(([m]) => m),
        }
      : {}),
  };
}
