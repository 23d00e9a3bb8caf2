import * as path from "node:path";
import { z } from "zod";
import { CheckpointError } from "../errors/errors.js";
import type { Offset } from "../sources/source.js";
import { readTextIfExistsSync, writeIfAbsentSync } from "./atomic-file.js";
import { BatchLog, LOG_VERSION } from "./batch-log.js";

/** `<checkpoint>/metadata`: which query owns the checkpoint and what it reads. */
const metadataSchema = z.object({
  id: z.string().min(1),
  version: z.number().int().min(1),
  /** Source descriptions in plan order; a query with other sources may not reuse the folder. */
  sources: z.array(z.string()),
  /** Names of the stateful operators by operator id, so state is never read by a different operator. */
  stateful: z.array(z.string()),
});
export type CheckpointMetadata = Readonly<z.infer<typeof metadataSchema>>;

const epochMs = z.number().finite();

/** `offsets/<batchId>`: written before a batch runs. Each source checks its own offsets' shape. */
const offsetsEntrySchema = z.object({
  sources: z.array(z.unknown()),
  batchWatermarkMs: epochMs.nullable(),
  batchTimestampMs: epochMs,
  // Only the global watermark is logged, as in Spark: a restart does not restore the inputs' own
  // watermarks. Entries of older runs that list them still read (zod drops the extra field).
  /**
   * Settings the query keeps for the life of its checkpoint, by Spark's keys (Spark's
   * OffsetSeqMetadata conf; runtime/relayed-conf.ts reads them). Absent in entries written
   * before Sluice recorded any.
   */
  conf: z.record(z.string(), z.string()).optional(),
});
export interface OffsetsEntry {
  readonly sources: readonly Offset[];
  readonly batchWatermarkMs: number | null;
  readonly batchTimestampMs: number;
  readonly conf?: Readonly<Record<string, string>>;
}

/** `commits/<batchId>`: written after the sink accepted the batch. */
const commitEntrySchema = z.object({ nextBatchWatermarkMs: epochMs.nullable() });
export type CommitEntry = Readonly<z.infer<typeof commitEntrySchema>>;

/** The checkpoint folder of one query (DESIGN §7). */
export class Checkpoint {
  readonly offsets: BatchLog<OffsetsEntry>;
  readonly commits: BatchLog<CommitEntry>;

  constructor(readonly root: string) {
    this.offsets = new BatchLog(path.join(root, "offsets"), offsetsEntrySchema as z.ZodType<OffsetsEntry>);
    this.commits = new BatchLog(path.join(root, "commits"), commitEntrySchema);
  }

  sourceDir(index: number): string {
    return path.join(this.root, "sources", String(index));
  }

  get metadataFile(): string {
    return path.join(this.root, "metadata");
  }

  /**
   * Reads the metadata, or writes it for a new checkpoint. A checkpoint written for other sources
   * or another stateful operator stops the query: continuing would mix two queries' offsets.
   */
  claim(wanted: Omit<CheckpointMetadata, "id" | "version">, newId: string): CheckpointMetadata {
    const existing = this.readMetadata();
    if (existing) {
      const sameSources = JSON.stringify(existing.sources) === JSON.stringify(wanted.sources);
      const sameStateful = JSON.stringify(existing.stateful) === JSON.stringify(wanted.stateful);
      if (!sameSources || !sameStateful) {
        const ops = (names: readonly string[]) => (names.length ? `stateful operators ${JSON.stringify(names)}` : "no stateful operator");
        throw new CheckpointError(
          `checkpoint file ${this.metadataFile} belongs to another query (sources ${JSON.stringify(existing.sources)}, ${ops(existing.stateful)}); ` +
            `this query reads ${JSON.stringify(wanted.sources)} with ${ops(wanted.stateful)}. Use a new checkpointLocation.`,
        );
      }
      return existing;
    }
    const meta: CheckpointMetadata = { id: newId, version: LOG_VERSION, ...wanted };
    // Two queries creating the same checkpoint at once: the second reads what the first wrote.
    if (!writeIfAbsentSync(this.metadataFile, `${JSON.stringify(meta)}\n`)) return this.claim(wanted, newId);
    return meta;
  }

  /** Read synchronously: `start()` checks the checkpoint before it returns. */
  readMetadata(): CheckpointMetadata | null {
    const text = readTextIfExistsSync(this.metadataFile);
    if (text === null) return null;
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (e) {
      throw new CheckpointError(`checkpoint file ${this.metadataFile} is corrupt: ${(e as Error).message}`, { cause: e });
    }
    const version = (json as { version?: unknown } | null)?.version;
    if (typeof version === "number" && version > LOG_VERSION) {
      throw new CheckpointError(`checkpoint file ${this.metadataFile} was written by a newer Sluice (version ${version}); upgrade Sluice`);
    }
    const meta = metadataSchema.safeParse(json);
    if (!meta.success) {
      const issue = meta.error.issues[0]!;
      throw new CheckpointError(`checkpoint file ${this.metadataFile} is corrupt: ${issue.message}${issue.path.length ? ` at ${issue.path.join(".")}` : ""}`);
    }
    return meta.data;
  }
}
