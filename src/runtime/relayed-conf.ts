import { MULTIPLE_WATERMARK_POLICY, type SqlConf, type WatermarkPolicy, watermarkPolicySchema } from "../config/sql-conf.js";
import { CheckpointError } from "../errors/errors.js";

/**
 * The settings a query keeps for the life of its checkpoint, as Spark relays them through the
 * conf of its offsets log (OffsetSeqMetadata): every offsets entry records them, and a restarted
 * query runs with the values of its latest entry, whatever its session says now. Changing them
 * under a running query's state would change its answers: under another multiple-watermark
 * policy a restarted query would judge rows late by another watermark than the one its state
 * was kept by. Of the settings Sluice reads, only spark.sql.streaming.multipleWatermarkPolicy is
 * relayed (as in Spark; the no-data-batch flag may change from one run to the next).
 */
export type RelayedConf = { readonly [MULTIPLE_WATERMARK_POLICY]: WatermarkPolicy };

/** What a query records in a new checkpoint: its session's settings when it started. */
export function relayedConfOf(session: SqlConf): RelayedConf {
  return { [MULTIPLE_WATERMARK_POLICY]: session[MULTIPLE_WATERMARK_POLICY] };
}

/**
 * For an offsets log written before a setting was recorded, the value that gives the behaviour
 * the query had then (Spark's relevantSQLConfDefaultValues): Sluice's watermark was always the
 * minimum of its inputs' before the policy could be set.
 */
const UNRECORDED: RelayedConf = { [MULTIPLE_WATERMARK_POLICY]: "min" };

/** The settings recorded in the offsets log entry `file` (its `conf`), checked as the session checks them. */
export function restoreRelayedConf(logged: Readonly<Record<string, string>> | undefined, file: string): RelayedConf {
  const value = logged?.[MULTIPLE_WATERMARK_POLICY];
  if (value === undefined) return UNRECORDED;
  const policy = watermarkPolicySchema.safeParse(value);
  if (!policy.success) {
    throw new CheckpointError(
      `checkpoint file ${file} is corrupt: it records ${MULTIPLE_WATERMARK_POLICY} ${JSON.stringify(value)}, but valid values are 'min' and 'max'; it was modified outside Sluice`,
    );
  }
  return { [MULTIPLE_WATERMARK_POLICY]: policy.data };
}
