import { describe, expect, it } from "vitest";
import { z } from "zod";
import { field, makeBatch, utf8FromStrings } from "../batch/batch.js";
import { kafkaSinkOptionsSchema, kafkaSinkTransactions } from "../config/kafka-options.js";
import { validateOptions } from "../config/validate.js";
import { OptionError } from "../errors/errors.js";
import { withSession } from "../testing/fixtures.js";
import { batchCommitEntry, lastCommittedBatch } from "./kafka-committed-batch.js";
import { KafkaSink } from "./kafka-sink.js";

const BOOTSTRAP = "127.0.0.1:1";
const transactionsOf = (options: Record<string, unknown>) =>
  kafkaSinkTransactions(validateOptions(kafkaSinkOptionsSchema, { "kafka.bootstrap.servers": BOOTSTRAP, ...options }, "kafka sink"));

describe("Kafka sink options for exactly-once writes", () => {
  it("turn on with exactlyOnce or a transactional id prefix; the transaction timeout defaults to the Kafka producer's 60 s", () => {
    expect(transactionsOf({})).toBe(null);
    expect(transactionsOf({ exactlyOnce: false })).toBe(null);
    expect(transactionsOf({ exactlyOnce: true })).toEqual({ idPrefix: null, timeoutMs: 60_000 });
    expect(transactionsOf({ exactlyOnce: "true" })).toEqual({ idPrefix: null, timeoutMs: 60_000 });
    expect(transactionsOf({ "kafka.transactional.id.prefix": "orders" })).toEqual({ idPrefix: "orders", timeoutMs: 60_000 });
    expect(transactionsOf({ exactlyOnce: true, "kafka.transactional.id.prefix": "orders", "kafka.transaction.timeout.ms": "120000" })).toEqual({
      idPrefix: "orders",
      timeoutMs: 120_000,
    });
  });

  it.each([
    [{ exactlyOnce: "yes" }, 'kafka sink: option "exactlyOnce": exactlyOnce must be true or false (got "yes")'],
    [
      { "kafka.transactional.id.prefix": "" },
      'kafka sink: option "kafka.transactional.id.prefix": kafka.transactional.id.prefix must not be empty: name the query\'s transactions (e.g. the query\'s name), or remove it for at-least-once writes (got "")',
    ],
    [
      { exactlyOnce: false, "kafka.transactional.id.prefix": "orders" },
      'kafka sink: option "exactlyOnce": exactlyOnce is false but kafka.transactional.id.prefix asks for exactly-once writes: remove one of the two (got false)',
    ],
    [
      { "kafka.transaction.timeout.ms": 30_000 },
      'kafka sink: option "kafka.transaction.timeout.ms": kafka.transaction.timeout.ms applies only to exactly-once writes: set exactlyOnce=true or kafka.transactional.id.prefix, or remove it (got 30000)',
    ],
    [{ exactlyOnce: true, "kafka.transaction.timeout.ms": 0 }, 'kafka sink: option "kafka.transaction.timeout.ms": kafka.transaction.timeout.ms must be greater than 0 (got 0)'],
    [{ exactlyOnce: true, "kafka.transaction.timeout.ms": 1.5 }, 'kafka sink: option "kafka.transaction.timeout.ms": kafka.transaction.timeout.ms must be a whole number (got 1.5)'],
    [
      { "kafka.transactional.id": "mine" },
      "kafka sink: option \"kafka.transactional.id\": Kafka option 'transactional.id' is not supported: the sink gives each of its tasks a transactional id of its own; set kafka.transactional.id.prefix (or exactlyOnce=true) instead (got \"mine\")",
    ],
  ])("are checked at start(): %j", (options, message) =>
    withSession(0, async (session) => {
      const stream = session.memoryStream(z.object({ value: z.string() }));
      const start = () => stream.toDF().writeStream.format("kafka").option("kafka.bootstrap.servers", BOOTSTRAP).option("topic", "t").options(options).start();
      expect(start).toThrow(OptionError);
      expect(start).toThrow(message);
    }),
  );

  it("give the sink its guarantee and a description naming the transactional ids it will use", () => {
    const sink = (transactional: { idPrefix: string | null; timeoutMs: number } | null) =>
      new KafkaSink({ bootstrapServers: BOOTSTRAP, topic: "t", clientId: "c", transactional });
    expect([sink(null).guarantee, sink(null).describe()]).toEqual([
      "at-least-once",
      "KafkaSink[t] (at-least-once: idempotent producer within a batch; a batch re-run after a crash is written again)",
    ]);
    expect([sink({ idPrefix: null, timeoutMs: 60_000 }).guarantee, sink({ idPrefix: null, timeoutMs: 60_000 }).describe()]).toEqual([
      "transactional",
      'KafkaSink[t] (exactly-once: one Kafka transaction per batch under transactional id "sluice-<queryId>-<task>", committing the batch id with the records, ' +
        "so a batch re-run after a crash that already reached Kafka is skipped; consumers must read with isolation.level=read_committed)",
    ]);
    expect(sink({ idPrefix: "orders", timeoutMs: 60_000 }).describe()).toContain('under transactional id "orders-<task>"');
    expect(sink({ idPrefix: "orders", timeoutMs: 60_000 }).transactionalIdOf({ queryId: "q", checkpointLocation: "/c", outputMode: "append" }, 3)).toBe("orders-3");
    expect(sink({ idPrefix: null, timeoutMs: 60_000 }).transactionalIdOf({ queryId: "q", checkpointLocation: "/c", outputMode: "append" }, 0)).toBe("sluice-q-0");
  });

  it("without open(context) an exactly-once sink refuses to write: it has no transactional id", async () => {
    const sink = new KafkaSink({ bootstrapServers: BOOTSTRAP, topic: "t", clientId: "c", transactional: { idPrefix: "orders", timeoutMs: 60_000 } });
    await expect(sink.addBatch(0, makeBatch([field("value", "string")], [utf8FromStrings(["v"])]))).rejects.toThrow(
      "KafkaSink in exactly-once mode: open(context) must be called before the first batch (it derives the transactional id from the query)",
    );
  });
});

describe("the batch id committed with each transaction", () => {
  it("is the offset, with the query id in the metadata; the newest of this query's entries counts", () => {
    const a = batchCommitEntry("query-a", 7, "out");
    expect(a).toEqual({ topic: "out", partitions: [{ partition: 0, offset: "7", metadata: '{"sluiceQueryId":"query-a","batchId":7}' }] });
    const committed = [a, batchCommitEntry("query-a", 9, "other"), batchCommitEntry("query-b", 12, "third")];
    expect(lastCommittedBatch(committed, "query-a")).toBe(9);
    expect(lastCommittedBatch(committed, "query-b")).toBe(12);
    expect(lastCommittedBatch(committed, "query-c")).toBe(-1);
    expect(lastCommittedBatch([], "query-a")).toBe(-1);
  });

  it("ignores offsets of the group that Sluice did not write", () => {
    const foreign = [
      { partitions: [{ offset: "40", metadata: "" }] },
      { partitions: [{ offset: "41", metadata: null }] },
      { partitions: [{ offset: "42", metadata: "{not json" }] },
      { partitions: [{ offset: "43", metadata: '{"sluiceQueryId":"q","batchId":-1}' }] },
      // Offset and metadata disagree: not written together.
      { partitions: [{ offset: "44", metadata: '{"sluiceQueryId":"q","batchId":3}' }] },
    ];
    expect(lastCommittedBatch(foreign, "q")).toBe(-1);
  });
});
