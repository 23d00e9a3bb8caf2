import type { Fields } from "../../types/dtype.js";

/** Spark's rate source: `rowsPerSecond` rows a second, over `numPartitions` partitions. */
export interface RateSourceDesc {
  readonly format: "rate";
  /** Always `timestamp`, `value` (RATE_FIELDS). */
  readonly fields: Fields;
  readonly rowsPerSecond: number;
  readonly numPartitions: number;
  readonly rampUpTimeMs: number;
}

/** Rate source: values [startSeq, endSeq) of the sequence that fall in one partition. */
export interface RateSplit {
  readonly kind: "rate";
  readonly partition: number;
  readonly numPartitions: number;
  /** Global sequence numbers start..end (exclusive) are spread round-robin over partitions. */
  readonly startSeq: number;
  readonly endSeq: number;
  readonly rowsPerSecond: number;
  readonly startTimeMs: number;
}
