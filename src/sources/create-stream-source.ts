import { SluiceError } from "../errors/errors.js";
import type { SourceDesc } from "../plan/logical.js";
import { KafkaStreamSource } from "./kafka/kafka-stream-source.js";
import { JsonFileStreamSource } from "./json/json-file-source.js";
import { MemoryStreamSource, type MemoryStreamData } from "./memory/memory-stream.js";
import { RateStreamSource } from "./rate/rate-source.js";
import type { StreamSource } from "./source.js";

export interface SourceContext {
  readonly memoryStream: (id: string) => MemoryStreamData | undefined;
  /** Folder under the checkpoint where source `index` keeps its own log. */
  readonly sourceDir: (index: number) => string;
}

/** The driver-side source object for a streaming leaf of the plan. */
export function createStreamSource(desc: SourceDesc, index: number, ctx: SourceContext): StreamSource {
  switch (desc.format) {
    case "memory": {
      const data = ctx.memoryStream(desc.streamId);
      if (!data) throw new SluiceError(`memory stream ${desc.streamId} belongs to another session`);
      return new MemoryStreamSource(data);
    }
    case "rate":
      return new RateStreamSource(desc);
    case "json":
      return new JsonFileStreamSource(desc.path, desc.options as typeof desc.options & { maxPartitionBytes: number }, ctx.sourceDir(index));
    case "kafka":
      return new KafkaStreamSource(desc.options, desc.valueFields, ctx.sourceDir(index));
    case "table":
      throw new SluiceError("Union between streaming and batch DataFrames/Datasets is not supported");
  }
}
