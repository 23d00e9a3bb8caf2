import type { Trigger } from "../config/options.js";
import { columnarKind } from "./columnar/columnar-kind.js";
import { jsonKind } from "./json/json-kind.js";
import { kafkaKind } from "./kafka/kafka-kind.js";
import { memoryKind, tableKind } from "./memory/memory-kind.js";
import { rateKind } from "./rate/rate-kind.js";
import type { SourceKind } from "./source-kind.js";
import type { DescOf, SourceDesc, SourceFormat } from "./source-desc.js";

/** Every kind of source Sluice has, by format; a new one fails to compile until it is listed. */
const KINDS: { readonly [F in SourceFormat]: SourceKind<DescOf<F>> } = {
  memory: memoryKind,
  table: tableKind,
  rate: rateKind,
  json: jsonKind,
  parquet: columnarKind,
  arrow: columnarKind,
  kafka: kafkaKind,
};

function kindOf<D extends SourceDesc>(desc: D): SourceKind<D> {
  return KINDS[desc.format] as unknown as SourceKind<D>;
}

/** Spark's description of a source (progress and checkpoint metadata). */
export function describeSource(desc: SourceDesc): string {
  return kindOf(desc).describe(desc);
}

/** Whether a checkpoint that recorded a source as `recorded` may be continued by a query reading `desc` (see `SourceKind.continues`). */
export function continuesSource(recorded: string, desc: SourceDesc): boolean {
  const kind = kindOf(desc);
  return kind.continues ? kind.continues(recorded, desc) : recorded === kind.describe(desc);
}

/** The source decoding only the `needed` columns where its kind can. */
export function narrowSource<D extends SourceDesc>(desc: D, needed: ReadonlySet<string>): D {
  return kindOf(desc).narrow(desc, needed);
}

/** Why a streaming query with `trigger` cannot read this source, or null. */
export function streamingRefusal(desc: SourceDesc, trigger: Trigger): string | null {
  return kindOf(desc).streamingRefusal(desc, trigger);
}

/**
 * Why real-time mode cannot read this source (Spark's INPUT_STREAM_NOT_SUPPORTED and the source's
 * own option checks), or null.
 */
export function realTimeRefusal(desc: SourceDesc): string | null {
  const kind = kindOf(desc);
  if (!kind.realTimeRefusal) return `the ${desc.format} source (${kind.describe(desc)}) has no real-time reader; real-time mode reads Kafka`;
  return kind.realTimeRefusal(desc);
}
