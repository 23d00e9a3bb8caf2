import type { BatchSplit } from "./batch-split.js";
import type { FileSplit } from "./file/file-split.js";
import type { KafkaSplit } from "./kafka/kafka-split.js";
import type { RateSplit } from "./rate/rate-desc.js";

/** The part of a source one task reads: each source folder defines its own split. */
export type InputSplit = BatchSplit | RateSplit | FileSplit | KafkaSplit;
