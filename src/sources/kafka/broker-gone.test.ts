import { describe, expect, it } from "vitest";
import { z } from "zod";
import { col } from "../../api/functions.js";
import { withSession } from "../../testing/fixtures.js";

// Nothing listens on this loopback port: the error path of a Kafka cluster that is not there.
const NOWHERE = "127.0.0.1:9";

describe("Kafka broker gone", () => {
  it("a static read fails naming the bootstrap address", () =>
    withSession(0, async (session) => {
      const read = session.read
        .format("kafka")
        .option("kafka.bootstrap.servers", NOWHERE)
        .option("kafka.connection.timeout.ms", 500)
        .option("subscribe", "t")
        .load()
        .collect();
      await expect(read).rejects.toThrow(`cannot connect to Kafka at ${NOWHERE}`);
    }));

  it("a streaming query stops with the error in exception and awaitTermination", () =>
    withSession(0, async (session) => {
      const q = session.readStream
        .format("kafka")
        .option("kafka.bootstrap.servers", NOWHERE)
        .option("kafka.connection.timeout.ms", 500)
        .option("subscribe", "t")
        .load()
        .writeStream.format("memory")
        .queryName("nowhere")
        .start();
      await expect(q.awaitTermination()).rejects.toThrow(`cannot connect to Kafka at ${NOWHERE}`);
      expect(q.isActive).toBe(false);
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
