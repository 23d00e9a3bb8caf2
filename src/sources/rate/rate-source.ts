import { z } from "zod";
import type { StreamSource } from "../source.js";
import type { RateSourceDesc, RateSplit } from "./rate-desc.js";
import { rateKind } from "./rate-kind.js";

/** Rate source offset: whole seconds elapsed since the query first read the source. */
const rateOffsetSchema = z.object({ seconds: z.number().int().min(0), startTimeMs: z.number().int() }).strict();
type RateOffset = z.infer<typeof rateOffsetSchema>;

/**
 * Spark's rate source: `rowsPerSecond` rows per second with columns `timestamp` and `value`,
 * values 0, 1, 2... spread round-robin over `numPartitions` partitions. Second s holds values
 * [s * rate, (s + 1) * rate), their timestamps spread evenly over that second. Rows are
 * generated inside the worker from the split, so nothing but two numbers crosses threads.
 */
export class RateStreamSource implements StreamSource<RateOffset, RateSplit> {
  readonly description: string;
  private startTimeMs: number | null = null;

  constructor(
    private readonly options: RateSourceDesc,
    private readonly now: () => number = Date.now,
  ) {
    this.description = rateKind.describe(options);
  }

  parseOffset(value: unknown): RateOffset {
    return rateOffsetSchema.parse(value);
  }

  initialOffset(): RateOffset {
    return { seconds: 0, startTimeMs: this.start() };
  }

  private start(): number {
    if (this.startTimeMs === null) this.startTimeMs = Math.floor(this.now() / 1000) * 1000;
    return this.startTimeMs;
  }

  async latestOffset(from: RateOffset): Promise<RateOffset> {
    // A restarted query keeps the start time recorded in its offsets.
    this.startTimeMs = from.startTimeMs;
    return { seconds: Math.max(from.seconds, Math.floor((this.now() - from.startTimeMs) / 1000)), startTimeMs: from.startTimeMs };
  }

  async reportLatestOffset(): Promise<RateOffset> {
    const start = this.start();
    return { seconds: Math.floor((this.now() - start) / 1000), startTimeMs: start };
  }

  /** Values emitted by the end of second `s`; during ramp-up the rate grows linearly, as Spark's. */
  private valuesBy(seconds: number): number {
    const rate = this.options.rowsPerSecond;
    const ramp = Math.floor(this.options.rampUpTimeMs / 1000);
    if (ramp <= 0) return seconds * rate;
    if (seconds <= ramp) return Math.floor(((seconds * (seconds + 1)) / 2) * (rate / (ramp + 1)));
    return this.valuesBy(ramp) + (seconds - ramp) * rate;
  }

  async planSplits(s: RateOffset, e: RateOffset): Promise<readonly RateSplit[]> {
    const startSeq = this.valuesBy(s.seconds);
    const endSeq = this.valuesBy(e.seconds);
    if (endSeq <= startSeq) return [];
    return Array.from({ length: this.options.numPartitions }, (_, partition) => ({
      kind: "rate" as const,
      partition,
      numPartitions: this.options.numPartitions,
      startSeq,
      endSeq,
      rowsPerSecond: this.options.rowsPerSecond,
      startTimeMs: e.startTimeMs,
    }));
  }

  commit(): void {}

  async stop(): Promise<void> {}
}
