import { Kafka, logLevel, type Message, type Producer } from "kafkajs";
import { type Batch, readNumbers, readString, readValidity } from "../batch/batch.js";
import { AnalysisError, SluiceError } from "../errors/errors.js";
import type { Fields } from "../types/dtype.js";
import type { Sink } from "./sink.js";

export interface KafkaSinkOptions {
  readonly bootstrapServers: string;
  readonly topic: string | null;
  readonly clientId: string;
}

/**
 * Writes rows to Kafka, as Spark's Kafka sink: a `value` column is required; `key`, `topic`,
 * `partition` and `headers` (JSON text of `[{"key":"k","value":"v"}]`) are used when present.
 * The producer is idempotent, so retries inside one batch write no duplicates; a batch re-run
 * after a crash is written again, so the guarantee is at-least-once.
 */
export class KafkaSink implements Sink {
  readonly guarantee = "at-least-once" as const;
  readonly description: string;
  private producer: Producer | null = null;

  constructor(private readonly options: KafkaSinkOptions) {
    this.description = `KafkaSink[${options.topic ?? "topic column"}]`;
  }

  /** Spark's checks on the query's output columns, at start(). */
  static checkSchema(fields: Fields, topicOption: string | null): void {
    const by = (n: string) => fields.find((f) => f.name === n);
    const value = by("value");
    if (!value) throw new AnalysisError("Required attribute 'value' not found");
    if (value.type !== "string") throw new AnalysisError(`value attribute type must be a string or binary, got ${value.type}`);
    const key = by("key");
    if (key && key.type !== "string") throw new AnalysisError(`key attribute type must be a string or binary, got ${key.type}`);
    const topic = by("topic");
    if (!topic && topicOption === null) {
      throw new AnalysisError("topic option required when no 'topic' attribute is present. Use the topic option for setting a topic.");
    }
    if (topic && topic.type !== "string") throw new AnalysisError(`topic attribute type must be a string, got ${topic.type}`);
    const partition = by("partition");
    if (partition && partition.type !== "int32") throw new AnalysisError(`partition attribute type must be an int, got ${partition.type}`);
    const headers = by("headers");
    if (headers && headers.type !== "string") throw new AnalysisError(`headers attribute must be JSON text of [{"key":..,"value":..}], got ${headers.type}`);
  }

  private async connected(): Promise<Producer> {
    if (this.producer) return this.producer;
    const kafka = new Kafka({ brokers: this.options.bootstrapServers.split(","), clientId: this.options.clientId, logLevel: logLevel.ERROR });
    const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
    try {
      await producer.connect();
    } catch (e) {
      throw new SluiceError(`cannot connect to Kafka at ${this.options.bootstrapServers}: ${(e as Error).message}`, { cause: e });
    }
    this.producer = producer;
    return producer;
  }

  async addBatch(_batchId: number, data: Batch): Promise<void> {
    if (data.numRows === 0) return;
    const col = (name: string) => {
      const i = data.fields.findIndex((f) => f.name === name);
      return i < 0 ? null : data.columns[i]!;
    };
    const [value, key, topic, partition, headers] = ["value", "key", "topic", "partition", "headers"].map(col);
    const partitions = partition ? readNumbers(partition) : null;
    const partitionValid = partition ? readValidity(partition) : null;
    const byTopic = new Map<string, Message[]>();
    for (let i = 0; i < data.numRows; i++) {
      const t = (topic ? readString(topic, i) : null) ?? this.options.topic;
      if (t === null) throw new SluiceError(`row ${i} of the batch has a null topic and the sink has no topic option`);
      const message: Message = { value: readString(value!, i), key: key ? readString(key, i) : null };
      if (partitions && (!partitionValid || partitionValid[i])) message.partition = partitions[i]!;
      const h = headers ? readString(headers, i) : null;
      if (h) message.headers = parseHeaders(h, i);
      let list = byTopic.get(t);
      if (!list) byTopic.set(t, (list = []));
      list.push(message);
    }
    const producer = await this.connected();
    await producer.sendBatch({ topicMessages: [...byTopic].map(([topic, messages]) => ({ topic, messages })), acks: -1 });
  }

  async close(): Promise<void> {
    await this.producer?.disconnect().catch(() => undefined);
    this.producer = null;
  }
}

function parseHeaders(text: string, row: number): Record<string, string> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = null;
  }
  if (!Array.isArray(parsed)) throw new SluiceError(`row ${row}: headers must be JSON such as [{"key":"k","value":"v"}], got ${text}`);
  const out: Record<string, string> = {};
  for (const h of parsed as { key?: unknown; value?: unknown }[]) {
    if (typeof h?.key !== "string") throw new SluiceError(`row ${row}: every header needs a string "key", got ${JSON.stringify(h)}`);
    out[h.key] = h.value === null || h.value === undefined ? "" : String(h.value);
  }
  return out;
}
