import { z } from "zod";
import type { Checkpoint, OffsetsEntry } from "../checkpoint/checkpoint.js";
import { MULTIPLE_WATERMARK_POLICY } from "../config/sql-conf.js";
import { CheckpointError } from "../errors/errors.js";
import type { PhysicalPlan } from "../planner/physical.js";
import type { Offset, StreamSource } from "../sources/source.js";
import { type RelayedConf, restoreRelayedConf } from "./relayed-conf.js";
import { WatermarkTracker } from "./watermark-tracker.js";

/** Where a run starts, as the checkpoint says (Spark's populateStartOffsets). */
export interface StartPoint {
  readonly nextBatchId: number;
  /** End offsets of the last committed batch: where the next batch starts. */
  readonly committed: readonly Offset[];
  readonly tracker: WatermarkTracker;
  /** The settings the checkpoint keeps (its latest offsets entry's, or the session's for a new one): every offsets entry records them. */
  readonly conf: RelayedConf;
  /** Batch `nextBatchId` was planned (its offsets logged) but not committed: re-run it as logged. */
  readonly pending: OffsetsEntry | null;
  /**
   * The watermark batch `nextBatchId - 1` ran with (offsets/N-1), by which batch `nextBatchId`
   * judges rows late; null for batch 0, which judges by its own.
   */
  readonly previousBatchWatermarkMs: number | null;
  /**
   * The last batch, committed, moved the watermark: its commit records a later watermark than the
   * one it ran with. The run that committed it would have followed it with a no-data batch (to emit
   * or evict by the new watermark), and so does the restarted run, so a stop or crash between the
   * two changes no output.
   */
  readonly watermarkMovedLastBatch: boolean;
  /** The batch timestamp of the last batch, when it is committed (offsets/N); null otherwise. */
  readonly lastBatchTimestampMs: number | null;
}

/**
 * Spark's populateStartOffsets. The latest offsets entry N is the batch to resume at: if
 * commits/N exists it is done and the query goes on with N + 1; otherwise N is re-run with
 * exactly its logged offsets, starting from offsets/N-1. Batches before N need no commit to be
 * believed done: offsets/N is written only after batch N-1 committed, so a missing older commit
 * (a deleted commits/ folder) never makes Sluice re-plan, or skip, data that was read. Unlike
 * Spark's, whose restarted query waits for data before it acts on the watermark its last batch
 * moved, a committed batch N that moved the watermark is followed by its no-data batch, as it
 * would have been without the restart (`watermarkMovedLastBatch`). The
 * settings a checkpoint keeps come from entry N too; `sessionConf` applies to a new checkpoint only.
 */
export async function populateStartOffsets(
  checkpoint: Checkpoint,
  sources: readonly StreamSource[],
  plan: PhysicalPlan,
  sessionConf: RelayedConf,
): Promise<StartPoint> {
  const lastOffsets = await checkpoint.offsets.latest();
  const lastCommit = await checkpoint.commits.latest();
  if (lastCommit && (!lastOffsets || lastCommit.batchId > lastOffsets.batchId)) {
    throw new CheckpointError(
      `checkpoint file ${checkpoint.commits.fileOf(lastCommit.batchId)} commits batch ${lastCommit.batchId}, but ${checkpoint.offsets.fileOf(lastCommit.batchId)} ` +
        "does not exist: the offsets log was deleted or modified outside Sluice, so the batches cannot be replayed; use a new checkpointLocation",
    );
  }
  if (!lastOffsets) {
    const committed = await Promise.all(sources.map((s) => s.initialOffset()));
    const tracker = new WatermarkTracker(plan.watermarks, sessionConf[MULTIPLE_WATERMARK_POLICY]);
    return { nextBatchId: 0, committed, tracker, conf: sessionConf, pending: null, previousBatchWatermarkMs: null, watermarkMovedLastBatch: false, lastBatchTimestampMs: null };
  }
  const n = lastOffsets.batchId;
  const conf = restoreRelayedConf(lastOffsets.value.conf, checkpoint.offsets.fileOf(n));
  const policy = conf[MULTIPLE_WATERMARK_POLICY];
  const done = lastCommit?.batchId === n;
  const previous = n > 0 ? await logged(checkpoint, sources, n - 1) : null;
  const latest = checkOffsets(checkpoint, sources, n, lastOffsets.value);
  // Only the global watermark is restored (Spark's setWatermark): the inputs start afresh.
  if (done) {
    const next = lastCommit!.value.nextBatchWatermarkMs;
    return {
      nextBatchId: n + 1,
      committed: latest.sources,
      tracker: new WatermarkTracker(plan.watermarks, policy, maxWatermark(latest.batchWatermarkMs, next)),
      conf,
      pending: null,
      previousBatchWatermarkMs: latest.batchWatermarkMs,
      watermarkMovedLastBatch: next !== null && (latest.batchWatermarkMs === null || next > latest.batchWatermarkMs),
      lastBatchTimestampMs: latest.batchTimestampMs,
    };
  }
  const committed = previous ? previous.sources : await Promise.all(sources.map((s) => s.initialOffset()));
  const tracker = new WatermarkTracker(plan.watermarks, policy, latest.batchWatermarkMs);
  return { nextBatchId: n, committed, tracker, conf, pending: latest, previousBatchWatermarkMs: previous?.batchWatermarkMs ?? null, watermarkMovedLastBatch: false, lastBatchTimestampMs: null };
}

async function logged(checkpoint: Checkpoint, sources: readonly StreamSource[], batchId: number): Promise<OffsetsEntry> {
  const { offsets } = checkpoint;
  const entry = await offsets.get(batchId);
  if (!entry) {
    throw new CheckpointError(`checkpoint file ${offsets.fileOf(batchId)} is missing: batch ${batchId + 1} needs it to know where it starts; the offsets log was modified outside Sluice`);
  }
  return checkOffsets(checkpoint, sources, batchId, entry);
}

/** An offsets entry read back holds one offset per source, each of the shape its source writes. */
function checkOffsets(checkpoint: Checkpoint, sources: readonly StreamSource[], batchId: number, entry: OffsetsEntry): OffsetsEntry {
  const file = checkpoint.offsets.fileOf(batchId);
  if (entry.sources.length !== sources.length) {
    throw new CheckpointError(
      `checkpoint file ${file} records ${entry.sources.length} source offset(s), but this query reads ${sources.length} source(s): ` +
        "the checkpoint belongs to another query; use a new checkpointLocation",
    );
  }
  const parsed = sources.map((source, i) => {
    try {
      return source.parseOffset(entry.sources[i]);
    } catch (e) {
      const reason = e instanceof z.ZodError ? (e.issues[0]?.message ?? e.message) : (e as Error).message;
      throw new CheckpointError(
        `checkpoint file ${file} is corrupt: the offset of source ${i} (${source.description}), ${JSON.stringify(entry.sources[i])}, is not one this source writes (${reason})`,
        { cause: e },
      );
    }
  });
  return { ...entry, sources: parsed };
}

function maxWatermark(a: number | null, b: number | null): number | null {
  if (a === null) return b;
  if (b === null) return a;
  return Math.max(a, b);
}
