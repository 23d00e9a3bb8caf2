import type { JsonSourceDesc } from "./json/json-desc.js";
import type { KafkaSourceDesc } from "./kafka/kafka-desc.js";
import type { MemorySourceDesc, TableSourceDesc } from "./memory/memory-desc.js";
import type { RateSourceDesc } from "./rate/rate-desc.js";

/**
 * Where rows come from, as plan data: each source folder defines its own description; a plan
 * holds one per leaf, and a worker reads its split by it.
 */
export type SourceDesc = MemorySourceDesc | TableSourceDesc | RateSourceDesc | JsonSourceDesc | KafkaSourceDesc;

export type SourceFormat = SourceDesc["format"];

export type DescOf<F extends SourceFormat> = Extract<SourceDesc, { format: F }>;
