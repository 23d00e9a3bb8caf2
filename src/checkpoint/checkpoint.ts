import * as path from "node:path";
import { z } from "zod";
import { CheckpointError } from "../errors/errors.js";
import type { Offset } from "../sources/source.js";
import { operatorStateSchemaZod, type OperatorStateSchema } from "../state/operator-state-schema.js";
import { readTextIfExistsSync, writeIfAbsentSync } from "./atomic-file.js";
import { BatchLog, LOG_VERSION } from "./batch-log.js";

/** `<checkpoint>/metadata`: which query owns the checkpoint, what it reads and what state it keeps. Written once. */
export interface CheckpointMetadata {
  readonly id: string;
  readonly version: number;
  /** Source descriptions in plan order; a query reading other sources may not continue the checkpoint. */
  readonly sources: readonly string[];
  /** Names of the stateful operators by operator id, for people and for older Sluice versions. */
  readonly stateful: readonly string[];
  /**
   * The state schema of each stateful operator, by operator id: a restart must be compatible with
   * it. Absent in checkpoints written before Sluice recorded it; those are held to `stateful`.
   */
  readonly stateSchemas?: readonly OperatorStateSchema[];
}

const metadataSchema = z.object({
  id: z.string().min(1),
  version: z.number().int().min(1),
  sources: z.array(z.string()),
  stateful: z.array(z.string()),
  // Optional in this log version: older checkpoints lack it, and older Sluice versions skip it.
  stateSchemas: z.array(operatorStateSchemaZod).optional(),
}) satisfies z.ZodType<CheckpointMetadata>;

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
  /**
   * Written at the end of a real-time batch (runtime/real-time-execution.ts): `sources` are where
   * its tasks stopped reading, and everything before them is in the sink already.
   */
  realTime: z.literal(true).optional(),
});
export interface OffsetsEntry {
  readonly sources: readonly Offset[];
  readonly batchWatermarkMs: number | null;
  readonly batchTimestampMs: number;
  readonly conf?: Readonly<Record<string, string>>;
  readonly realTime?: true;
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
   * Reads the metadata, or writes it for a new checkpoint. `check` is given the metadata of an
   * existing checkpoint and throws when this query may not continue it (a query with other
   * sources, other stateful operators, or state it cannot read: runtime/checkpoint-continuation.ts).
   */
  claim(wanted: Omit<CheckpointMetadata, "id" | "version">, newId: string, check: (existing: CheckpointMetadata) => void): CheckpointMetadata {
    const existing = this.readMetadata();
    if (existing) {
      check(existing);
      return existing;
    }
    const meta: CheckpointMetadata = { id: newId, version: LOG_VERSION, ...wanted };
    // Two queries creating the same checkpoint at once: the second reads what the first wrote.
    if (!writeIfAbsentSync(this.metadataFile, `${JSON.stringify(meta)}\n`)) return this.claim(wanted, newId, check);
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
