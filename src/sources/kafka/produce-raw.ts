import { SluiceError } from "../../errors/errors.js";
import type { KafkaBroker } from "./kafka-cluster.js";
import { loadedKafkajs, type KafkaErrorCode } from "./kafkajs.js";

/**
 * One Produce (v7) request carrying one already-encoded record batch per topic-partition, for
 * several partitions at once, sent through a kafkajs broker connection. Sluice encodes the
 * batches itself (columnar, no per-message objects); kafkajs only frames and transports them.
 * Every partition's error code is parsed: a failure raises `ProduceError`, which names each failed
 * topic-partition with Kafka's error name and keeps every partition's result, so a caller can
 * retry only what failed.
 */

/** Codes newer than kafkajs 2.2.4's table that a current broker may still return. */
const NEWER_CODES: readonly KafkaErrorCode[] = [
  { type: "PRODUCER_FENCED", code: 90, retriable: false, message: "There is a newer producer with the same transactionalId which fences the current one" },
  { type: "TRANSACTION_ABORTABLE", code: 120, retriable: false, message: "The producer must abort the transaction in progress" },
];
let byCode: Map<number, KafkaErrorCode> | null = null;

export interface KafkaErrorInfo {
  readonly code: number;
  /** Kafka's name for it, e.g. NOT_LEADER_FOR_PARTITION, MESSAGE_TOO_LARGE. */
  readonly name: string;
  readonly retriable: boolean;
  readonly message: string;
}

/** Kafka's name and meaning of an error code (asked only about answers, so kafkajs is loaded). */
export function kafkaError(code: number): KafkaErrorInfo {
  byCode ??= new Map([...loadedKafkajs().errorCodes, ...NEWER_CODES].map((e) => [e.code, e]));
  const e = byCode.get(code);
  return e ? { code, name: e.type, retriable: e.retriable, message: e.message } : { code, name: `UNKNOWN_ERROR_CODE_${code}`, retriable: false, message: `unknown error code ${code}` };
}

/** One partition's part of a Produce request: exactly one record batch (Produce v3+ allows no more). */
export interface ProducePartition {
  readonly topic: string;
  readonly partition: number;
  readonly batch: Uint8Array;
}

export interface ProducePartitionResult {
  readonly topic: string;
  readonly partition: number;
  /** 0 when the batch was appended. */
  readonly errorCode: number;
  /** Offset of the batch's first record, -1 on error. */
  readonly baseOffset: number;
}

/** Some partitions of a Produce request failed; `results` has every partition's outcome. */
export class ProduceError extends SluiceError {
  override name = "ProduceError";
  constructor(readonly results: readonly ProducePartitionResult[]) {
    const failed = results.filter((r) => r.errorCode !== 0);
    super(`produce to Kafka failed: ${failed.map((r) => `${r.topic}-${r.partition}: ${describe(r.errorCode)}`).join("; ")}`);
  }
}

function describe(code: number): string {
  const e = kafkaError(code);
  return `${e.name} (${e.message})`;
}

export interface ProduceRawOptions {
  /** A transactional producer's id, which the broker needs with transactional batches. Default none. */
  readonly transactionalId?: string | null;
  /** How long the broker may wait for the in-sync replicas (the request's timeout_ms). Default 30 s. */
  readonly timeoutMs?: number;
  /** How long the client waits for the response. Default timeoutMs + 10 s. */
  readonly requestTimeoutMs?: number;
}

const ACKS_ALL = -1;

/** Sends one Produce v7 request with acks=-1; resolves with every partition's result, or throws `ProduceError`. */
export async function produceRaw(broker: KafkaBroker, partitions: readonly ProducePartition[], options: ProduceRawOptions = {}): Promise<ProducePartitionResult[]> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const body = encodeProduceV7(partitions, timeoutMs, options.transactionalId ?? null);
  const request = { apiKey: 0, apiVersion: 7, apiName: "Produce", encode: async () => body };
  const response = { decode: async (payload: Buffer) => payload, parse: async (payload: Buffer) => payload };
  const payload = (await broker.connectionPool.send({ request, response, requestTimeout: options.requestTimeoutMs ?? timeoutMs + 10_000 })) as Buffer;
  const results = parseProduceV7(payload);
  if (results.some((r) => r.errorCode !== 0)) throw new ProduceError(results);
  return results;
}

const utf8 = new TextEncoder();

/**
 * The request body, built in one buffer. kafkajs's request framing takes anything shaped like its
 * Encoder (a `buf` Buffer and a `buffer` getter), so the record batches are copied once here.
 *
 *   transactional_id nullable string (-1: none) acks int16 timeout_ms int32
 *   [topic string [partition int32 records bytes(int32 length)]]
 */
function encodeProduceV7(partitions: readonly ProducePartition[], timeoutMs: number, transactionalId: string | null): { buf: Buffer; buffer: Buffer } {
  const byTopic = new Map<string, ProducePartition[]>();
  for (const p of partitions) {
    let list = byTopic.get(p.topic);
    if (!list) byTopic.set(p.topic, (list = []));
    list.push(p);
  }
  const names = new Map([...byTopic.keys()].map((t) => [t, utf8.encode(t)]));
  const txn = transactionalId === null ? null : utf8.encode(transactionalId);
  let size = 2 + (txn?.length ?? 0) + 2 + 4 + 4;
  for (const [topic, list] of byTopic) {
    size += 2 + names.get(topic)!.length + 4;
    for (const p of list) size += 4 + 4 + p.batch.length;
  }
  const buf = Buffer.allocUnsafe(size);
  let at = buf.writeInt16BE(txn === null ? -1 : txn.length, 0);
  if (txn !== null) {
    buf.set(txn, at);
    at += txn.length;
  }
  at = buf.writeInt16BE(ACKS_ALL, at);
  at = buf.writeInt32BE(timeoutMs, at);
  at = buf.writeInt32BE(byTopic.size, at);
  for (const [topic, list] of byTopic) {
    const name = names.get(topic)!;
    at = buf.writeInt16BE(name.length, at);
    buf.set(name, at);
    at = buf.writeInt32BE(list.length, at + name.length);
    for (const p of list) {
      at = buf.writeInt32BE(p.partition, at);
      at = buf.writeInt32BE(p.batch.length, at);
      buf.set(p.batch, at);
      at += p.batch.length;
    }
  }
  return { buf, buffer: buf };
}

/**
 * The response body (after the correlation id):
 *   [topic string [partition int32 error_code int16 base_offset int64 log_append_time_ms int64
 *   log_start_offset int64]] throttle_time_ms int32
 */
function parseProduceV7(payload: Buffer): ProducePartitionResult[] {
  const out: ProducePartitionResult[] = [];
  const topics = payload.readInt32BE(0);
  let at = 4;
  for (let t = 0; t < topics; t++) {
    const nameLength = payload.readInt16BE(at);
    const topic = payload.toString("utf8", at + 2, at + 2 + nameLength);
    at += 2 + nameLength;
    const count = payload.readInt32BE(at);
    at += 4;
    for (let p = 0; p < count; p++) {
      const partition = payload.readInt32BE(at);
      const errorCode = payload.readInt16BE(at + 4);
      const baseOffset = Number(payload.readBigInt64BE(at + 6));
      out.push({ topic, partition, errorCode, baseOffset });
      at += 4 + 2 + 8 + 8 + 8;
    }
  }
  return out;
}
