import type { Batch } from "../batch/batch.js";
import type { TaskMetrics } from "../batch/task-metrics.js";
import { InternalError } from "../errors/errors.js";
import type { InputSplit } from "./input-split.js";
import { columnarRuntime } from "./columnar/columnar-runtime.js";
import { jsonRuntime } from "./json/json-runtime.js";
import { kafkaRuntime } from "./kafka/kafka-runtime.js";
import { memoryRuntime, tableRuntime } from "./memory/memory-runtime.js";
import { rateRuntime } from "./rate/rate-runtime.js";
import type { DescOf, SourceDesc, SourceFormat } from "./source-desc.js";
import type { SourceRuntime, SplitTail, StaticContext, StreamContext } from "./source-runtime.js";
import type { StreamSource } from "./source.js";

/** Every kind of source by format; a new one fails to compile until it is listed. */
const RUNTIMES: { readonly [F in SourceFormat]: SourceRuntime<DescOf<F>, any> } = {
  memory: memoryRuntime,
  table: tableRuntime,
  rate: rateRuntime,
  json: jsonRuntime,
  parquet: columnarRuntime,
  arrow: columnarRuntime,
  kafka: kafkaRuntime,
};

function runtimeOf<D extends SourceDesc>(desc: D): SourceRuntime<D, InputSplit> {
  return RUNTIMES[desc.format] as unknown as SourceRuntime<D, InputSplit>;
}

/** The driver-side stream of a streaming leaf of the plan. */
export function openStreamSource(desc: SourceDesc, ctx: StreamContext): StreamSource {
  return runtimeOf(desc).openStream(desc, ctx);
}

/** All the data of a source read as a static DataFrame, as input splits. */
export function staticSplits(desc: SourceDesc, ctx: StaticContext): Promise<readonly InputSplit[]> {
  return runtimeOf(desc).staticSplits(desc, ctx);
}

/** Reads one input split into a columnar batch, in the worker that runs the task. */
export function readInputSplit(desc: SourceDesc, split: InputSplit, metrics: TaskMetrics): Promise<Batch> {
  const runtime = runtimeOf(desc);
  if (split.kind !== runtime.splitKind) throw new InternalError(`a ${split.kind} split cannot be read by a ${desc.format} source`);
  return runtime.readSplit(desc, split, metrics);
}

/** Real-time mode's reader of an open-ended split, in the task that owns it. */
export function openSplitTail(desc: SourceDesc, split: InputSplit, metrics: TaskMetrics): SplitTail {
  const runtime = runtimeOf(desc);
  if (split.kind !== runtime.splitKind || !runtime.openTail) throw new InternalError(`a ${split.kind} split of a ${desc.format} source cannot be read in real time`);
  return runtime.openTail(desc, split, metrics);
}

/** What a task's split reads, in words (task errors name it). */
export function describeInputSplit(desc: SourceDesc, split: InputSplit): string {
  const runtime = runtimeOf(desc);
  return split.kind === runtime.splitKind ? runtime.describeSplit(split) : `a ${split.kind} split of a ${desc.format} source`;
}

/** Closes the connections every kind of source keeps (a session's stop). */
export async function closeSourceConnections(): Promise<void> {
  await Promise.all(Object.values(RUNTIMES).map((r) => r.closeConnections?.()));
}
