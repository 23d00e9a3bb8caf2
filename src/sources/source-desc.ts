import type { ColumnarSourceDesc } from "./columnar/columnar-desc.js";
import type { JsonSourceDesc } from "./json/json-desc.js";
import type { KafkaSourceDesc } from "./kafka/kafka-desc.js";
import type { MemorySourceDesc, TableSourceDesc } from "./memory/memory-desc.js";
import type { RateSourceDesc } from "./rate/rate-desc.js";

/**
 * Where rows come from, as plan data: each source folder defines its own description; a plan
 * holds one per leaf, and a worker reads its split by it.
 */
export type SourceDesc = MemorySourceDesc | TableSourceDesc | RateSourceDesc | JsonSourceDesc | ColumnarSourceDesc | KafkaSourceDesc;

export type SourceFormat = SourceDesc["format"];

/** The description of format `F` (one description may serve several formats, as the columnar one). */
export type DescOf<F extends SourceFormat> = DescOfEach<SourceDesc, F>;
type DescOfEach<D, F> = D extends { readonly format: infer G } ? (F extends G ? D : never) : never;
