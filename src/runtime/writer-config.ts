import type { Clock } from "./clock.js";
import type { Batch } from "../batch/batch.js";
import type { FileSinkFormat } from "../config/file-sink-options.js";
import type { OutputMode, Trigger } from "../config/options.js";
import type { KafkaSecurityOptions } from "../config/kafka-security-options.js";

/** A validated `writeStream` configuration, as the query manager receives it. */
export interface WriterConfig {
  readonly outputMode: OutputMode;
  readonly trigger: Trigger;
  readonly queryName: string | null;
  readonly checkpointLocation: string | null;
  /**
   * The clock batch timestamps and trigger times are read from (Spark's triggerClock); the system
   * clock unless a test drives time by hand (testing/manual-clock.ts).
   */
  readonly clock?: Clock;
  readonly sink:
    | { readonly kind: "console"; readonly numRows: number; readonly truncate: boolean }
    | { readonly kind: "memory" }
    | {
        readonly kind: "kafka";
        readonly bootstrapServers: string;
        readonly topic: string | null;
        readonly clientId: string;
        /** Exactly-once writes (a transactional id prefix, null to derive it from the query id); null: at-least-once. */
        readonly transactional: { readonly idPrefix: string | null; readonly timeoutMs: number } | null;
        /** TLS and SASL: the kafka.security.protocol, kafka.ssl.* and kafka.sasl.* options. */
        readonly security: KafkaSecurityOptions;
      }
    | { readonly kind: "foreachBatch"; readonly fn: (batch: Batch, batchId: number) => unknown }
    | { readonly kind: "file"; readonly format: FileSinkFormat; readonly path: string; readonly maxRecordsPerFile: number; readonly compactInterval: number };
}
