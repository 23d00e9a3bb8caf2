import { existsSync } from "node:fs";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { SchemaRegistryError } from "../errors/errors.js";
import { encodeAvroValues } from "../formats/avro/avro-encode.js";
import { fieldsFromZod } from "../schema/zod-schema.js";
import { withSession } from "../testing/fixtures.js";
import { createTopic, deleteTopic, kafkaBootstrap } from "../testing/kafka.js";
import { encodeRows, produceValues } from "../testing/produce-values.js";
import { tempDir } from "../testing/temp-dir.js";
import { SchemaRegistryClient } from "./registry-client.js";
import { schemaRegistryService, schemaRegistryUrl, uniqueSubject } from "./test-support.js";

// The schema registry stopped under a client, and started again: what the client still answers from its cache,
// how long a request waits before it fails and what the failure says, and that the next request after the
// restart works. The registry keeps its schemas in memory, so it comes back empty: after the restart the test
// registers again and asks a new client (whose cache holds nothing from before) for what it registered.

const BUDGET = { maxRetries: 3, retryBackoffMs: 200, requestTimeoutMs: 2000 };
const V1 = JSON.stringify({ type: "record", name: "Order", namespace: "com.example", fields: [{ name: "id", type: "long" }] });
const V2 = JSON.stringify({ type: "record", name: "Refund", namespace: "com.example", fields: [{ name: "order", type: "long" }] });

/** What a request to the stopped registry fails with, once its four attempts are refused. */
const unreachable = (request: string) =>
  `cannot reach the schema registry at ${schemaRegistryUrl()} after 4 attempt(s) 200 ms apart: ECONNREFUSED (${request}). ` +
  "Check schema.registry.url; maxRetries and retryBackoffMs set how long Sluice waits for the registry";

const client = () => new SchemaRegistryClient({ "schema.registry.url": schemaRegistryUrl(), ...BUDGET });

async function failure(work: Promise<unknown>): Promise<SchemaRegistryError> {
  const error = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SchemaRegistryError);
  return error as SchemaRegistryError;
}

afterEach(async () => {
  // Whatever a test did to the registry, the next one (and the other suites) finds it answering.
  await schemaRegistryService.start();
});

describe("schema registry down, and back", () => {
  it("serves a known id from the cache while the registry is down; other requests fail within their retry budget naming the URL; after the restart the next request works", async () => {
    const url = schemaRegistryUrl();
    const c = client();
    const subject = uniqueSubject("orders-value");
    const id = await c.register(subject, V1);
    expect((await c.schemaById(id)).schema).toBe(V1);

    await schemaRegistryService.stop();

    // The schema of an id never changes: the cached one is the answer, with no request.
    expect(await c.schemaById(id)).toEqual({ schemaType: "AVRO", schema: V1, references: [] });
    const unknownId = id + 1000;
    const started = Date.now();
    const down = await failure(c.schemaById(unknownId));
    const waited = Date.now() - started;
    expect(down.message).toBe(unreachable(`GET /schemas/ids/${unknownId}`));
    expect([down.url, down.request, down.status, down.errorCode]).toEqual([url, `GET /schemas/ids/${unknownId}`, undefined, undefined]);
    // Three waits of 200 ms between four refused connections: bounded, and not given up early.
    expect(waited).toBeGreaterThanOrEqual(600);
    expect(waited).toBeLessThan(5000);
    const refund = uniqueSubject("refunds-value");
    expect((await failure(c.register(refund, V2))).message).toBe(unreachable(`POST /subjects/${refund}/versions`));

    await schemaRegistryService.start();

    // The same client: its failed registration was not cached, so this one asks the registry.
    const refundId = await c.register(refund, V2);
    expect(await c.lookup(refund, V2)).toEqual({ subject: refund, version: 1, id: refundId, schemaType: "AVRO", schema: V2, references: [] });
    expect(await client().schemaById(refundId)).toEqual({ schemaType: "AVRO", schema: V2, references: [] });
  });

  it("requests in flight together each fail within the budget; the same client works once the registry is started again", async () => {
    const c = client();
    await schemaRegistryService.stop();
    const subject = uniqueSubject("late-value");
    const errors = await Promise.all([failure(c.latest(subject)), failure(c.schemaById(1))]);
    expect(errors.map((e) => e.message)).toEqual([unreachable(`GET /subjects/${subject}/versions/latest`), unreachable("GET /schemas/ids/1")]);
    await schemaRegistryService.start();
    const id = await c.register(subject, V1);
    expect(await c.latest(subject)).toEqual({ subject, version: 1, id, schemaType: "AVRO", schema: V1, references: [] });
  });
});

describe("a query reading Avro values through the schema registry, the registry down and back", () => {
  const Order = z.object({ id: z.int32(), item: z.string() });
  const ORDER = JSON.stringify({ type: "record", name: "Order", namespace: "com.example", fields: [{ name: "id", type: "int" }, { name: "item", type: "string" }] });
  const orders = (schemaId: number, ...ids: number[]) => encodeRows(ids.map((id) => ({ id, item: `item-${id}` })), fieldsFromZod(Order), (batch) => encodeAvroValues(batch, { schemaId }));

  it("fails within the registry's retry budget with a SchemaRegistryError naming the registry; restarted from the same checkpoint once the registry is back, it reads every record exactly once", () =>
    withSession(1, async (session) => {
      // The test registry keeps its schemas in memory and counts ids from the same start after each start:
      // from a fresh start, the same schema registered first gets the same id again, as a registry that
      // keeps its schemas (in Kafka, as Confluent's does) would still give it after a restart.
      await schemaRegistryService.stop();
      await schemaRegistryService.start();
      const topic = await createTopic("sluice-registry-outage", 1);
      const checkpoint = tempDir("sluice-registry-outage-");
      try {
        const subject = uniqueSubject(`${topic}-value`);
        const id = await client().register(subject, ORDER);
        await produceValues(topic, orders(id, 1, 2, 3));
        const seen: { batchId: number; id: unknown }[] = [];
        const start = () =>
          session.readStream
            .format("kafka")
            .schema(Order)
            .option("kafka.bootstrap.servers", kafkaBootstrap())
            .option("subscribe", topic)
            .option("startingOffsets", "earliest")
            .option("valueFormat", "avro")
            .option("schema.registry.url", schemaRegistryUrl())
            .option("schema.registry.maxRetries", BUDGET.maxRetries)
            .option("schema.registry.retryBackoffMs", BUDGET.retryBackoffMs)
            .option("schema.registry.requestTimeoutMs", BUDGET.requestTimeoutMs)
            .load()
            .select("id")
            .writeStream.option("checkpointLocation", checkpoint.dir)
            .foreachBatch(async (df, batchId) => {
              for (const row of await df.collect()) seen.push({ batchId, id: row.id });
            })
            .trigger({ availableNow: true })
            .start();

        await schemaRegistryService.stop();
        const started = Date.now();
        const down = start();
        await expect(down.awaitTermination()).rejects.toThrow();
        const waited = Date.now() - started;
        // Each of the task's 4 attempts (the worker pool's default) spends the registry's 4 attempts, 200 ms apart, then gives up.
        expect(waited).toBeGreaterThanOrEqual(4 * 600);
        expect(waited).toBeLessThan(15_000);
        // The query's error, then the task's, rebuilt on the driver from the worker thread's.
        const [query, task] = causes(down.exception!);
        expect([query!.name, task!.name]).toEqual(["StreamingQueryException", "SchemaRegistryError"]);
        expect(task).toBeInstanceOf(SchemaRegistryError);
        expect(task!.message).toBe(unreachable(`GET /schemas/ids/${id}`));
        expect(query!.message).toMatch(/terminated with exception: cannot reach the schema registry at /);
        // The batch was planned (its offsets logged) but never committed, and the sink never saw it.
        expect([existsSync(path.join(checkpoint.dir, "offsets", "0")), existsSync(path.join(checkpoint.dir, "commits", "0"))]).toEqual([true, false]);
        expect(seen).toEqual([]);

        await schemaRegistryService.start();
        expect(await client().register(subject, ORDER)).toBe(id);
        await produceValues(topic, orders(id, 4, 5));
        const back = start();
        await back.awaitTermination();
        // Batch 0 is run again with the offsets it logged (records 1 to 3), the rest follows: each record once.
        expect(seen.map((r) => r.id)).toEqual([1, 2, 3, 4, 5]);
        expect(seen.filter((r) => r.batchId === 0).map((r) => r.id)).toEqual([1, 2, 3]);
      } finally {
        checkpoint.remove();
        await deleteTopic(topic);
      }
    }));
});

/** An error and its causes, outermost first. */
function causes(error: Error): Error[] {
  const chain = [error];
  while (chain.at(-1)!.cause instanceof Error) chain.push(chain.at(-1)!.cause as Error);
  return chain;
}
