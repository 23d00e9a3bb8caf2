import * as path from "node:path";
import { BatchLog } from "../../checkpoint/batch-log.js";
import type { KafkaSourceOptions } from "../../config/kafka-options.js";
import { SluiceError } from "../../errors/errors.js";
import { z } from "zod";
import type { Backlog, ReadLimit, StreamSource } from "../source.js";
import type { KafkaValues } from "./kafka-desc.js";
import { kafkaKind } from "./kafka-kind.js";
import { OPEN_END, type KafkaSplit } from "./kafka-split.js";
import { GroupCommitter } from "./group-commit.js";
import { KafkaMetadata, type SubscriptionStrategy } from "./kafka-metadata.js";
import { connectionOf, kafkaSplits, lookupPolicyOf, resolveStartingOffsets, strategyOf } from "./kafka-options-resolve.js";
import { resolveValues, type ResolvedValues } from "./kafka-value-format.js";
import { lagMetrics, limitByBacklog, type OffsetRange } from "./offset-ranges.js";
import { type PartitionOffsets, partitionsOf, type TopicPartition, toPartitionOffsets, tpKey } from "./partition-offsets.js";

/**
 * Spark's Kafka micro-batch stream. The driver decides each batch's offset range per partition
 * (rate limits included) and records it in the offsets log; workers fetch exactly those ranges.
 * Offsets never live in a consumer group (optionally they are also published to one).
 */
/** Offsets as Spark's Kafka source logs them: `{"topic":{"0":23,"1":7}}`. */
const partitionOffsetsSchema = z.record(z.string(), z.record(z.string().regex(/^\d+$/, "partition numbers are whole numbers"), z.number().int().min(0)));

export class KafkaStreamSource implements StreamSource<PartitionOffsets, KafkaSplit> {
  readonly description: string;
  readonly limitsRows = true;
  private readonly metadata: KafkaMetadata;
  private readonly strategy: SubscriptionStrategy;
  private readonly initialLog: BatchLog<PartitionOffsets>;
  private readonly group: GroupCommitter | null;
  /** Latest offsets seen by the last `latestOffset`, for progress and lag. */
  private latestSeen = new Map<string, number>();
  /** Set by an availableNow run: the partitions and latest offsets when it started, its end. */
  private availableNowView: ClusterView | null = null;
  private lastTriggerMs: number;
  /**
   * The values' format, resolved once per run (a Protobuf schema is parsed here, on the driver);
   * awaited before the first offsets are planned, so that a schema that cannot be read fails the
   * query before any batch.
   */
  private readonly values: Promise<ResolvedValues | null>;

  constructor(
    private readonly options: KafkaSourceOptions,
    values: KafkaValues | null,
    sourceDir: string,
    private readonly now: () => number = Date.now,
  ) {
    this.description = kafkaKind.describe({ format: "kafka", options, valueFields: values?.fields ?? null, values: values?.spec ?? null, fields: [] });
    this.values = resolveValues(values);
    // Its failure is reported where it is awaited; until then it must not count as unhandled.
    this.values.catch(() => undefined);
    this.metadata = new KafkaMetadata(connectionOf(options), lookupPolicyOf(options));
    this.strategy = strategyOf(options);
    this.initialLog = new BatchLog(path.join(sourceDir, "initial"));
    this.group = options.commitOffsetsToGroup ? new GroupCommitter(connectionOf(options), options.commitOffsetsToGroup, options["kafka.default.api.timeout.ms"]) : null;
    this.lastTriggerMs = now();
  }

  parseOffset(value: unknown): PartitionOffsets {
    return partitionOffsetsSchema.parse(value);
  }

  /** Resolved once and written under the checkpoint, so "latest" means the same after a restart. */
  async initialOffset(): Promise<PartitionOffsets> {
    await this.values;
    const logged = await this.initialLog.get(0);
    if (logged) return logged;
    const partitions = await this.metadata.partitions(this.strategy);
    if (partitions.length === 0 && this.strategy.kind === "subscribe") {
      throw new SluiceError(`Kafka topic(s) ${this.strategy.topics.join(", ")} not found at ${this.options["kafka.bootstrap.servers"]}`);
    }
    const start = toPartitionOffsets(
      [...(await resolveStartingOffsets(this.options, partitions, this.metadata, "latest"))].map(([k, o]) => [byKey(partitions, k), o] as const),
    );
    await this.initialLog.add(0, start);
    return (await this.initialLog.get(0))!;
  }

  async latestOffset(from: PartitionOffsets, limit?: ReadLimit): Promise<PartitionOffsets> {
    await this.values;
    const known = partitionsOf(from);
    let view = this.availableNowView ?? (await this.clusterView());
    // A broker that has just taken over a partition's leadership (after a restart, or a stall long
    // enough to get it fenced) can answer for a moment as if the topic did not exist, or with a
    // latest offset below one already read (its high watermark not yet caught up). As Spark's
    // offset reader does for such offsets (KAFKA-7703), ask again before calling it data loss.
    const { "fetchOffset.numRetries": retries, "fetchOffset.retryIntervalMs": interval } = this.options;
    for (let retry = 1; retry <= retries && looksLikeLoss(view, from, known); retry++) {
      console.warn(`${this.description}: partitions missing or behind their last offsets at ${this.options["kafka.bootstrap.servers"]}; asking again in ${interval} ms (${retry} of ${retries})`);
      await new Promise((r) => setTimeout(r, interval));
      view = await this.clusterView();
      if (this.availableNowView !== null) this.availableNowView = view;
    }
    const { partitions, latest } = view;
    this.latestSeen = latest;
    const alive = new Set(partitions.map(tpKey));
    const lost = known.filter((tp) => !alive.has(tpKey(tp)));
    if (lost.length > 0) this.dataLoss(`partitions ${lost.map((tp) => `${tp.topic}-${tp.partition}`).join(", ")} are gone (topic deleted?)`);
    const startMap = new Map<string, number>();
    const fresh = partitions.filter((tp) => !known.some((k) => tpKey(k) === tpKey(tp)));
    // Partitions that appeared since the last batch are read from their earliest offset, as Spark does.
    const earliestFresh = fresh.length ? await this.metadata.earliest(fresh) : new Map<string, number>();
    for (const tp of partitions) {
      const k = tpKey(tp);
      const s = from[tp.topic]?.[String(tp.partition)] ?? earliestFresh.get(k)!;
      if (s > latest.get(k)!) {
        this.dataLoss(`${tp.topic}-${tp.partition} was at offset ${s} but its latest offset is now ${latest.get(k)} (topic recreated or truncated?)`);
        startMap.set(k, latest.get(k)!);
      } else {
        startMap.set(k, s);
      }
    }
    const backlog = partitions.reduce((n, tp) => n + latest.get(tpKey(tp))! - startMap.get(tpKey(tp))!, 0);
    const { minOffsetsPerTrigger: min, maxTriggerDelay } = this.options;
    // The query's limit (a sized batch) and maxOffsetsPerTrigger both cap the batch: the smaller wins.
    const caps = [this.options.maxOffsetsPerTrigger, limit?.maxRows].filter((c): c is number => c !== undefined);
    const max = caps.length > 0 ? Math.min(...caps) : undefined;
    // An availableNow run never waits for more data (there will be none it may read): it reads what is left.
    if (min !== undefined && this.availableNowView === null && backlog < min && this.now() - this.lastTriggerMs < maxTriggerDelay) {
      return toPartitionOffsets(partitions.filter((tp) => known.some((k) => tpKey(k) === tpKey(tp))).map((tp) => [tp, startMap.get(tpKey(tp))!] as const));
    }
    const end = max !== undefined ? limitByBacklog(partitions, startMap, latest, max) : latest;
    const result = toPartitionOffsets(partitions.map((tp) => [tp, end.get(tpKey(tp))!] as const));
    if (JSON.stringify(result) !== JSON.stringify(from)) this.lastTriggerMs = this.now();
    return result;
  }

  /** Spark's allDataForTriggerAvailableNow: an availableNow run reads these partitions up to these offsets. */
  async prepareForTriggerAvailableNow(): Promise<void> {
    await this.values;
    this.availableNowView = await this.clusterView();
  }

  /** The partitions that exist now and their latest offsets. */
  private async clusterView(): Promise<ClusterView> {
    const candidates = await this.metadata.partitions(this.strategy);
    const latest = await this.metadata.latest(candidates);
    // A partition is gone when the metadata no longer lists it or it has no offsets (topic deleted).
    return { partitions: candidates.filter((tp) => latest.has(tpKey(tp))), latest };
  }

  async reportLatestOffset(): Promise<PartitionOffsets> {
    return toPartitionOffsets([...this.latestSeen].map(([k, o]) => [parseKey(k), o] as const));
  }

  /** Offsets between `from` and each partition's latest (partitions new since `from`: from their earliest). */
  async backlog(from: PartitionOffsets): Promise<Backlog> {
    const { partitions, latest } = this.availableNowView ?? (await this.clusterView());
    const startOf = (tp: TopicPartition) => from[tp.topic]?.[String(tp.partition)];
    const fresh = partitions.filter((tp) => startOf(tp) === undefined);
    const earliest = fresh.length ? await this.metadata.earliest(fresh) : new Map<string, number>();
    const rows = partitions.reduce((n, tp) => n + Math.max(0, latest.get(tpKey(tp))! - (startOf(tp) ?? earliest.get(tpKey(tp)) ?? 0)), 0);
    return { rows };
  }

  metrics(end: PartitionOffsets): Record<string, string> {
    const endMap = new Map(partitionsOf(end).map((tp) => [tpKey(tp), end[tp.topic]![String(tp.partition)]!]));
    return lagMetrics(endMap, this.latestSeen);
  }

  async planSplits(from: PartitionOffsets, end: PartitionOffsets, minSplits?: number): Promise<readonly KafkaSplit[]> {
    const to = partitionsOf(end);
    const fresh = to.filter((tp) => from[tp.topic]?.[String(tp.partition)] === undefined);
    const earliestFresh = fresh.length ? await this.metadata.earliest(fresh) : new Map<string, number>();
    const ranges: OffsetRange[] = to.map((tp) => ({
      ...tp,
      start: from[tp.topic]?.[String(tp.partition)] ?? earliestFresh.get(tpKey(tp))!,
      end: end[tp.topic]![String(tp.partition)]!,
    }));
    return kafkaSplits(this.options, ranges, await this.values, minSplits);
  }

  /**
   * One open-ended split per partition, from `from` (partitions new since: from their earliest
   * offset). The offset limits that size micro-batches are refused in real-time mode (kafka-kind.ts),
   * so the partitions are simply those the cluster has now.
   */
  async realTimeSplits(from: PartitionOffsets): Promise<readonly KafkaSplit[]> {
    const now = await this.latestOffset(from);
    // Open at the end, so that a partition with nothing to read yet still gets its split.
    return this.planSplits(from, toPartitionOffsets(partitionsOf(now).map((tp) => [tp, OPEN_END] as const)));
  }

  /** Each partition's offset where its task stopped reading; partitions no task read keep theirs. */
  realTimeEnd(from: PartitionOffsets, splits: readonly KafkaSplit[], positions: readonly unknown[]): PartitionOffsets {
    const reached = new Map(partitionsOf(from).map((tp) => [tpKey(tp), [tp, from[tp.topic]![String(tp.partition)]!] as const]));
    splits.forEach((s, i) => reached.set(tpKey(s), [{ topic: s.topic, partition: s.partition }, positions[i] as number]));
    return toPartitionOffsets(reached.values());
  }

  commit(end: PartitionOffsets): void {
    this.group?.commit(end);
  }

  async stop(): Promise<void> {
    this.metadata.close();
    await this.group?.close();
  }

  private dataLoss(what: string): void {
    const message =
      `Some data may have been lost because they are not available in Kafka any more: ${what}. ` +
      'If you want your streaming query to continue, set the source option "failOnDataLoss" to "false".';
    if (this.options.failOnDataLoss) throw new SluiceError(message);
    console.warn(`${this.description}: ${message.replace(/ If you want.*$/, "")}; continuing because failOnDataLoss is false`);
  }
}

interface ClusterView {
  readonly partitions: readonly TopicPartition[];
  readonly latest: Map<string, number>;
}

/** True when a partition read before is missing from `view`, or its latest offset is below where reading stopped. */
function looksLikeLoss(view: ClusterView, from: PartitionOffsets, known: readonly TopicPartition[]): boolean {
  return known.some((tp) => {
    const latest = view.latest.get(tpKey(tp));
    return latest === undefined || latest < from[tp.topic]![String(tp.partition)]!;
  });
}

function parseKey(k: string): TopicPartition {
  const dash = k.lastIndexOf("-");
  return { topic: k.slice(0, dash), partition: Number(k.slice(dash + 1)) };
}

function byKey(partitions: readonly TopicPartition[], k: string): TopicPartition {
  return partitions.find((tp) => tpKey(tp) === k) ?? parseKey(k);
}
