/**
 * The one module that reaches into kafkajs's private files, and why. Sluice fetches and produces
 * record batches itself (decoded straight into Arrow columns, encoded from them), which kafkajs's
 * public consumer and producer cannot do; it needs kafkajs's cluster layer (metadata, leaders,
 * broker connections with negotiated API versions, TLS and SASL), its Fetch v11 request encoder
 * and its table of Kafka error codes. kafkajs is pinned to 2.2.4 and no longer released, so these
 * files do not move. The imports are static, so bundlers include the files; the module itself is
 * loaded only through `loadKafkajs()` (./kafkajs.ts), so a program that never touches Kafka never
 * loads kafkajs.
 */
import kafkajs from "kafkajs";
import Cluster from "kafkajs/src/cluster/index.js";
import loggers from "kafkajs/src/loggers/index.js";
import protocolErrors from "kafkajs/src/protocol/error.js";
import fetchV11 from "kafkajs/src/protocol/requests/fetch/v11/request.js";
import type { KafkaCluster } from "./kafka-cluster.js";

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
}

export const internals: KafkajsInternals = {
  Kafka: kafkajs.Kafka,
  Cluster: Cluster as KafkajsInternals["Cluster"],
  createLogger: loggers.createLogger as KafkajsInternals["createLogger"],
  levels: loggers.LEVELS as KafkajsInternals["levels"],
  fetchV11Request: fetchV11 as KafkajsInternals["fetchV11Request"],
  errorCodes: protocolErrors.errorCodes as KafkaErrorCode[],
};
