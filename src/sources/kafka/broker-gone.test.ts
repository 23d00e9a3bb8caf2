import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { col } from "../../api/functions.js";
import { withSession } from "../../testing/fixtures.js";

// Nothing listens on this loopback port: the error path of a Kafka cluster that is not there.
const NOWHERE = "127.0.0.1:9";

afterEach(() => {
  vi.restoreAllMocks();
});

describe("Kafka broker gone", () => {
  it("a static read fails naming the bootstrap address, after the lookup's retries", () =>
    withSession(0, async (session) => {
      const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
      const read = session.read
        .format("kafka")
        .option("kafka.bootstrap.servers", NOWHERE)
        .option("kafka.connection.timeout.ms", 500)
        .option("fetchOffset.numRetries", 1)
        .option("fetchOffset.retryIntervalMs", 100)
        .option("subscribe", "t")
        .load()
        .collect();
      await expect(read).rejects.toThrow(
        `cannot list the partitions of topic(s) t from Kafka at ${NOWHERE} after 2 attempt(s) 100 ms apart: cannot connect to Kafka at ${NOWHERE}: Connection error: connect ECONNREFUSED ${NOWHERE}. ` +
          "Check that the broker runs and answers; to wait longer for it, raise the source options fetchOffset.numRetries (1) or fetchOffset.retryIntervalMs (100)",
      );
      expect(warn.mock.calls.map(([m]) => m)).toEqual([
        `cannot list the partitions of topic(s) t from Kafka at ${NOWHERE} (attempt 1 of 2): cannot connect to Kafka at ${NOWHERE}: Connection error: connect ECONNREFUSED ${NOWHERE}; trying again in 100 ms`,
      ]);
    }));

  it("a streaming query stops with the error in exception and awaitTermination, within Spark's default budget", () =>
    withSession(0, async (session) => {
      const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
      const started = performance.now();
      const q = session.readStream
        .format("kafka")
        .option("kafka.bootstrap.servers", NOWHERE)
        .option("kafka.connection.timeout.ms", 500)
        .option("subscribe", "t")
        .load()
        .writeStream.format("memory")
        .queryName("nowhere")
        .start();
      await expect(q.awaitTermination()).rejects.toThrow(
        `cannot list the partitions of topic(s) t from Kafka at ${NOWHERE} after 4 attempt(s) 1000 ms apart: cannot connect to Kafka at ${NOWHERE}`,
      );
      expect(q.isActive).toBe(false);
      // fetchOffset.numRetries 3 and fetchOffset.retryIntervalMs 1000: three waits of a second.
      expect(warn).toHaveBeenCalledTimes(3);
      expect(performance.now() - started).toBeGreaterThanOrEqual(3_000);
      expect(performance.now() - started).toBeLessThan(20_000);
    }));

  it("a query writing to a Kafka sink stops with an error naming the bootstrap address", () =>
    withSession(0, async (session) => {
      const input = session.memoryStream(z.object({ body: z.string() }));
      const q = input.toDF().select(col("body").alias("value")).writeStream.format("kafka").option("kafka.bootstrap.servers", NOWHERE).option("topic", "t").start();
      input.addData({ body: "lost" });
      await expect(q.awaitTermination()).rejects.toThrow(`cannot connect to Kafka at ${NOWHERE}`);
      expect(q.isActive).toBe(false);
    }));
});
