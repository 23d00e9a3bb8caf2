import { describe, expect, it } from "vitest";
import { SchemaRegistryError } from "../errors/errors.js";
import { SchemaRegistryClient } from "./registry-client.js";
import { schemaRegistryUrl, uniqueSubject } from "./test-support.js";
import { readWireHeader, wireHeader } from "./wire-format.js";

// The client against the real registry the kafka project starts (Apicurio Registry's Confluent-compatible API,
// scripts/schema-registry.sh). Its ids do not start at 1 and go on counting across deletes, so the tests
// compare ids with each other, never with a number. Each test uses subjects of its own.

const client = () => new SchemaRegistryClient({ "schema.registry.url": schemaRegistryUrl(), maxRetries: 1, retryBackoffMs: 200 });

const record = (...fields: object[]) => JSON.stringify({ type: "record", name: "Order", namespace: "com.example", fields });
const ID = { name: "id", type: "long" };
const V1 = record(ID);
const WITH_DEFAULT = record(ID, { name: "status", type: "string", default: "new" });
const WITHOUT_DEFAULT = record(ID, { name: "status", type: "string", default: "new" }, { name: "email", type: "string" });

async function failure(work: Promise<unknown>): Promise<SchemaRegistryError> {
  const error = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SchemaRegistryError);
  return error as SchemaRegistryError;
}

describe("schema registry client against the real registry", () => {
  it("registers an Avro schema, and a client that has not seen it reads it back by id", async () => {
    const subject = uniqueSubject("orders-value");
    const id = await client().register(subject, V1);
    expect(Number.isInteger(id) && id >= 0).toBe(true);
    expect(await client().schemaById(id)).toEqual({ schemaType: "AVRO", schema: V1, references: [] });
  });

  it("a second register of the same schema returns the same id, and lookup, latest and version name it", async () => {
    const subject = uniqueSubject("orders-value");
    const id = await client().register(subject, V1);
    // Another client, so that the registry answers, not the first client's cache.
    const other = client();
    expect(await other.register(subject, V1)).toBe(id);
    const version = { subject, version: 1, id, schemaType: "AVRO", schema: V1, references: [] };
    expect(await other.lookup(subject, V1)).toEqual(version);
    expect(await other.latest(subject)).toEqual(version);
    expect(await other.version(subject, 1)).toEqual(version);
  });

  it("BACKWARD: a field added with a default is the next version; one without a default is refused with the registry's reason", async () => {
    const subject = uniqueSubject("orders-value");
    const c = client();
    const v1 = await c.register(subject, V1);
    await c.setCompatibility(subject, "BACKWARD");
    expect(await c.compatibility(subject)).toBe("BACKWARD");

    expect(await c.testCompatibility(subject, WITH_DEFAULT)).toEqual({ compatible: true, messages: [] });
    const v2 = await c.register(subject, WITH_DEFAULT);
    expect(v2).not.toBe(v1);
    expect(await c.latest(subject)).toEqual({ subject, version: 2, id: v2, schemaType: "AVRO", schema: WITH_DEFAULT, references: [] });

    const reason = `Incompatible artifact: ${subject} [AVRO], num of incompatible diffs: {1}, list of diff types: [email at /fields/2] Causes: email at /fields/2`;
    expect(await c.testCompatibility(subject, WITHOUT_DEFAULT)).toEqual({ compatible: false, messages: [reason] });
    const refused = await failure(c.register(subject, WITHOUT_DEFAULT));
    expect(refused.message).toBe(
      `the schema registry at ${schemaRegistryUrl()} refused to register the schema under subject "${subject}": it is not compatible with the subject's earlier versions under its compatibility level: ` +
        `POST /subjects/${subject}/versions answered HTTP 409 (error 409: io.apicurio.registry.rules.RuleViolationException: ${reason})`,
    );
    expect([refused.status, refused.errorCode]).toEqual([409, 409]);
    // The refused schema left no version behind; against version 1 alone it is refused too.
    expect((await c.latest(subject)).version).toBe(2);
    expect(await c.testCompatibility(subject, WITHOUT_DEFAULT, "AVRO", { version: 1 })).toEqual({
      compatible: false,
      messages: [`Incompatible artifact: ${subject} [AVRO], num of incompatible diffs: {1}, list of diff types: [email at /fields/2] Causes: email at /fields/2`],
    });
  });

  it("an unknown id fails with error 40403 in the registry's words", async () => {
    const error = await failure(client().schemaById(987_654));
    expect(error.message).toBe(
      `schema id 987654 is not in the schema registry at ${schemaRegistryUrl()}: GET /schemas/ids/987654 answered HTTP 404 (error 40403: No content with id/hash 'contentId-987654' was found.)`,
    );
    expect([error.url, error.request, error.status, error.errorCode]).toEqual([schemaRegistryUrl(), "GET /schemas/ids/987654", 404, 40403]);
  });

  it("an unknown subject, version, or schema under a subject: errors 40401, 40402 and 40403", async () => {
    const subject = uniqueSubject("orders-value");
    const missing = uniqueSubject("missing");
    const c = client();
    await c.register(subject, V1);
    const messages = [await failure(c.latest(missing)), await failure(c.version(subject, 9)), await failure(c.lookup(subject, WITH_DEFAULT))].map((e) => e.message);
    const url = schemaRegistryUrl();
    expect(messages).toEqual([
      `subject "${missing}" is not in the schema registry at ${url}: GET /subjects/${missing}/versions/latest answered HTTP 404 (error 40401: No artifact with ID '${missing}' in group 'null' was found.)`,
      `subject "${subject}" has no version 9 in the schema registry at ${url}: GET /subjects/${subject}/versions/9 answered HTTP 404 (error 40402: No version '9' found for artifact with ID '${subject}' in group 'null'.)`,
      `the schema is not registered under subject "${subject}" in the schema registry at ${url}: POST /subjects/${subject} answered HTTP 404 (error 40403: The given schema does not match any schema under the subject ${subject})`,
    ]);
  });

  it("a Protobuf schema is registered and read back with its type", async () => {
    const subject = uniqueSubject("payments-value");
    const proto = 'syntax = "proto3";\npackage com.example;\n\nmessage Payment {\n  string id = 1;\n  int64 cents = 2;\n}\n';
    const id = await client().register(subject, proto, "PROTOBUF");
    expect(await client().schemaById(id)).toEqual({ schemaType: "PROTOBUF", schema: proto, references: [] });
  });

  it("a value framed in the wire format with a registered id leads back to its schema", async () => {
    const subject = uniqueSubject("orders-value");
    const c = client();
    const id = await c.register(subject, V1);
    const header = wireHeader(id);
    const value = new Uint8Array(header.length + 2);
    value.set(header);
    value.set([0x02, 0x04], header.length);
    const read = readWireHeader(value);
    expect(read).toEqual({ schemaId: id, payloadOffset: 5 });
    expect((await client().schemaById((read as { schemaId: number }).schemaId)).schema).toBe(V1);
  });
});
