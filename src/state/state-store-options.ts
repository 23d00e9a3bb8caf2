import { z } from "zod";
import { validateOptions } from "../config/validate.js";
import type { CheckpointError } from "../errors/errors.js";

/**
 * Options of the state store providers, under Spark's names (`spark.sql.streaming.
 * minBatchesToRetain`, `spark.sql.streaming.stateStore.minDeltasForSnapshot`). Numbers may be
 * given as strings, as Spark's configuration always is.
 */

const wholeNumber = (name: string, min: number, why: string) =>
  z.coerce.number().int(`${name} must be a whole number`).min(min, `${name} must be at least ${min} (${why})`);

/**
 * Versions kept recoverable: every version from the latest minus `minBatchesToRetain` on can be
 * loaded (Spark's rule), so at least 1: a batch re-runs from the version before its own.
 */
const minBatchesToRetain = wholeNumber("minBatchesToRetain", 1, "a batch re-runs from the version before it");

export const fileStateStoreOptionsSchema = z
  .object({
    minBatchesToRetain: minBatchesToRetain.default(100),
    /** A snapshot is written once this many deltas follow the last one. */
    minDeltasForSnapshot: wholeNumber("minDeltasForSnapshot", 1, "a snapshot follows at least one delta").default(10),
    /**
     * Maintenance passes (snapshot, deletions) that may fail in a row, each reported through
     * `onMaintenanceError`, before the next commit fails with the last error: a disk that keeps
     * refusing would otherwise fill up, or make recovery replay ever more deltas, unnoticed.
     */
    maxMaintenanceFailures: wholeNumber("maxMaintenanceFailures", 1, "the first failure is retried by the next pass").default(10),
    /**
     * Told about every maintenance step that failed (it is retried by the next pass). Default:
     * `process.emitWarning`, which prints to stderr unless the process listens for "warning".
     */
    onMaintenanceError: z
      .custom<(error: CheckpointError) => void>((v) => typeof v === "function", "onMaintenanceError must be a function")
      .optional(),
  })
  .strict();

export type FileStateStoreOptions = z.input<typeof fileStateStoreOptionsSchema>;
export type FileStateStoreSettings = z.output<typeof fileStateStoreOptionsSchema>;

/**
 * The in-memory provider holds every retained version as a full table, so it keeps the least
 * that re-running a batch needs: the latest version and the one before it.
 */
export const inMemoryStateStoreOptionsSchema = z.object({ minBatchesToRetain: minBatchesToRetain.default(1) }).strict();

export type InMemoryStateStoreOptions = z.input<typeof inMemoryStateStoreOptionsSchema>;

export function fileStateStoreSettings(options: FileStateStoreOptions): FileStateStoreSettings {
  return validateOptions(fileStateStoreOptionsSchema, options, "FileStateStoreProvider");
}

export function inMemoryStateStoreSettings(options: InMemoryStateStoreOptions): z.output<typeof inMemoryStateStoreOptionsSchema> {
  return validateOptions(inMemoryStateStoreOptionsSchema, options, "InMemoryStateStoreProvider");
}
