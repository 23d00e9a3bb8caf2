import type { InputSplit } from "./protocol.js";

/** What a task reads, in words, for errors that must say which input a failed task was given. */
export function describeSplit(split: InputSplit): string {
  switch (split.kind) {
    case "batch":
      return `an in-memory batch of ${split.batch.numRows} row(s)`;
    case "rate":
      return `rate source partition ${split.partition} of ${split.numPartitions}, sequence numbers [${split.startSeq}, ${split.endSeq})`;
    case "file":
      return `${split.path} bytes [${split.start}, ${split.end})`;
    case "kafka":
      return `Kafka topic ${split.topic} partition ${split.partition} offsets [${split.startOffset}, ${split.endOffset}) from ${split.connection.bootstrapServers}`;
  }
}
