/**
 * The module that reaches into kafkajs's private files (with ./kafkajs-request-framing.ts, which
 * replaces kafkajs's request framing before kafkajs loads, and ./kafkajs-request-queue.ts, which
 * mends its request queue's timer loop), and why. Sluice fetches and produces
 * record batches itself (decoded straight into Arrow columns, encoded from them), which kafkajs's
 * public consumer and producer cannot do; it needs kafkajs's cluster layer (metadata, leaders,
 * broker connections with negotiated API versions, TLS and SASL), its Fetch v11 request encoder
 * and its table of Kafka error codes. kafkajs is pinned to 2.2.4 and no longer released, so these
 * files do not move. The imports are static, so bundlers include the files; the module itself is
 * loaded only through `loadKafkajs()` (./kafkajs.ts), so a program that never touches Kafka never
 * loads kafkajs.
 */
// First: it puts Sluice's request framing in place before kafkajs's connection module binds its own.
import "./kafkajs-request-framing.js";
// Ends kafkajs's 1 ms timer loop on every idle request queue.
import "./kafkajs-request-queue.js";
import kafkajs from "kafkajs";
import Cluster from "kafkajs/src/cluster/index.js";
import loggers from "kafkajs/src/loggers/index.js";
import protocolErrors from "kafkajs/src/protocol/error.js";
import fetchV11 from "kafkajs/src/protocol/requests/fetch/v11/request.js";
import type { KafkaCluster } from "./kafka-cluster.js";
import { isFramedSocket } from "./framed-socket.js";

export interface KafkaErrorCode {
  readonly type: string;
  readonly code: number;
  readonly retriable: boolean;
  readonly message: string;
}

export interface KafkajsInternals {
  /** kafkajs's public client (admin and producer, for the dead-letter topic and consumer groups). */
  readonly Kafka: typeof kafkajs.Kafka;
  readonly Cluster: new (options: Record<string, unknown>) => KafkaCluster;
  readonly createLogger: (o: { level: number; logCreator: unknown }) => unknown;
  /** kafkajs's log levels (NOTHING 0, ERROR 1, WARN 2, INFO 4, DEBUG 5). */
  readonly levels: Readonly<Record<"NOTHING" | "ERROR" | "WARN" | "INFO" | "DEBUG", number>>;
  /** Encodes a Fetch v11 request (the response is parsed by Sluice: ./fetch-raw.ts). */
  readonly fetchV11Request: (o: Record<string, unknown>) => unknown;
  readonly errorCodes: readonly KafkaErrorCode[];
  /** Lets `connection` pass on the whole responses of a framed socket without copying them (see below). */
  readonly deliverWholeFrames: (connection: unknown) => void;
}

/** The fields of kafkajs's Connection (src/network/connection.js) that `deliverWholeFrames` reads. */
interface KafkajsConnection {
  socket: unknown;
  authHandlers: unknown;
  bytesBuffered: number;
  processData(data: Buffer): void;
  requestQueue: { fulfillRequest(response: { size: number; correlationId: number; payload: Buffer }): void };
}

const wholeFrames = new WeakSet<object>();

/**
 * kafkajs's Connection.processData keeps the chunks it got and, once a response is complete,
 * concatenates them, the previous response's (empty) remainder included: every response is
 * copied once more. On a framed socket (./framed-socket.ts) each chunk is one whole response, so
 * `connection` gets a processData of its own that hands the payload to the request queue as it
 * is. Anything else (a socket of Node's own reads, a SASL handshake, bytes kafkajs still holds)
 * goes to kafkajs's processData.
 */
function deliverWholeFrames(connection: unknown): void {
  const c = connection as KafkajsConnection;
  if (wholeFrames.has(c)) return;
  wholeFrames.add(c);
  const own = Object.getPrototypeOf(c).processData as KafkajsConnection["processData"];
  c.processData = function processWholeFrame(this: KafkajsConnection, data: Buffer) {
    if (!isFramedSocket(this.socket) || this.authHandlers || this.bytesBuffered > 0) return own.call(this, data);
    this.requestQueue.fulfillRequest({ size: data.length - 4, correlationId: data.readInt32BE(4), payload: data.subarray(8) });
  };
}

export const internals: KafkajsInternals = {
  Kafka: kafkajs.Kafka,
  Cluster: Cluster as KafkajsInternals["Cluster"],
  createLogger: loggers.createLogger as KafkajsInternals["createLogger"],
  levels: loggers.LEVELS as KafkajsInternals["levels"],
  fetchV11Request: fetchV11 as KafkajsInternals["fetchV11Request"],
  errorCodes: protocolErrors.errorCodes as KafkaErrorCode[],
  deliverWholeFrames,
};
