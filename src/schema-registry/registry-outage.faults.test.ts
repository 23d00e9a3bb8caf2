import { afterEach, describe, expect, it } from "vitest";
import { SchemaRegistryError } from "../errors/errors.js";
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
