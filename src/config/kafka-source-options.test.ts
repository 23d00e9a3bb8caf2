import { describe, expect, it } from "vitest";
import { kafkaSourceSchema } from "./kafka-options.js";
import { validateOptions } from "./validate.js";

const parse = (extra: Record<string, unknown>) =>
  validateOptions(kafkaSourceSchema, { "kafka.bootstrap.servers": "127.0.0.1:9092", subscribe: "t", ...extra }, 'readStream.format("kafka")');

describe("Kafka source options that bound waits for the broker", () => {
  it("default as Spark's Kafka source and the Java client do", () => {
    expect(parse({})).toMatchObject({
      "fetchOffset.numRetries": 3,
      "fetchOffset.retryIntervalMs": 1000,
      "kafkaConsumer.pollTimeoutMs": 120_000,
      "kafka.request.timeout.ms": 30_000,
      "kafka.default.api.timeout.ms": 60_000,
    });
  });

  it("take numbers or, as Spark's option(key, value) gives them, strings", () => {
    expect(
      parse({ "fetchOffset.numRetries": "0", "fetchOffset.retryIntervalMs": 250, "kafkaConsumer.pollTimeoutMs": "3000", "kafka.default.api.timeout.ms": 5000 }),
    ).toMatchObject({ "fetchOffset.numRetries": 0, "fetchOffset.retryIntervalMs": 250, "kafkaConsumer.pollTimeoutMs": 3000, "kafka.default.api.timeout.ms": 5000 });
  });

  it("reject values that cannot bound anything, naming the option", () => {
    expect(() => parse({ "fetchOffset.numRetries": -1 })).toThrow(
      'readStream.format("kafka"): option "fetchOffset.numRetries": fetchOffset.numRetries must be 0 or more (got -1)',
    );
    expect(() => parse({ "fetchOffset.retryIntervalMs": 1.5 })).toThrow('option "fetchOffset.retryIntervalMs": fetchOffset.retryIntervalMs must be a whole number (got 1.5)');
    expect(() => parse({ "kafkaConsumer.pollTimeoutMs": 0 })).toThrow('option "kafkaConsumer.pollTimeoutMs": kafkaConsumer.pollTimeoutMs must be greater than 0 (got 0)');
    expect(() => parse({ "kafka.default.api.timeout.ms": "soon" })).toThrow('option "kafka.default.api.timeout.ms"');
  });
});
