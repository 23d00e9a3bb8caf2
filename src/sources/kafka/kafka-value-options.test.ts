import { writeFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { DataFrame } from "../../api/data-frame.js";
import { Session } from "../../api/session.js";
import { AnalysisError, OptionError } from "../../errors/errors.js";
import { jsonError } from "../../formats/avro/test-support.js";
import { expectFailure, testStream } from "../../testing/stream-test.js";
import { tempDir } from "../../testing/temp-dir.js";
import { kafkaSourceDesc } from "./kafka-desc.js";

// The Kafka source's value format options, checked when the DataFrame is defined (no broker needed: nothing
// connects before a query runs). Protobuf schemas are parsed when a query starts, so their checks are seen
// through a static read, which parses before it asks any broker.

const session = new Session({ workers: 0 });
afterAll(() => session.stop());

const WHERE = 'readStream.format("kafka")';
const Order = z.object({ id: z.int32(), item: z.string() });
const AVRO = JSON.stringify({ type: "record", name: "Order", namespace: "shop", fields: [{ name: "id", type: "int" }, { name: "item", type: "string" }] });
const PROTO = 'syntax = "proto3"; package shop; message Order { int32 id = 1; string item = 2; }';
const REGISTRY = "http://127.0.0.1:1/apis/ccompat/v7";

const kafka = (schema: z.ZodObject<any> | null, options: Record<string, string | number | boolean>): DataFrame<any> => {
  const reader = session.readStream.format("kafka").option("kafka.bootstrap.servers", "127.0.0.1:1").option("subscribe", "orders").options(options);
  return schema === null ? reader.load() : reader.schema(schema).load();
};

/** The error defining the DataFrame fails with, as "Class: message". */
function failure(schema: z.ZodObject<any> | null, options: Record<string, string | number | boolean>): string {
  try {
    kafka(schema, options);
  } catch (e) {
    return `${(e as Error).name}: ${(e as Error).message}`;
  }
  throw new Error("the options were accepted");
}

describe("Kafka source value format options", () => {
  it.each([
    ["protobuf without protobuf.messageName", { valueFormat: "protobuf", "protobuf.schema": PROTO }, "valueFormat protobuf needs protobuf.messageName: the full name of the message the values hold, such as shop.Order"],
    ["avroSchema that is not JSON", { valueFormat: "avro", avroSchema: "{not json" }, `avroSchema: invalid Avro schema: the text is not JSON (${jsonError("{not json")})`],
    ["avroSchema that is not an Avro schema", { valueFormat: "avro", avroSchema: '{"type":"record","name":"O"}' }, 'avroSchema: invalid Avro schema at O: a record needs a "fields" array'],
    [
      "a registry option without schema.registry.url",
      { valueFormat: "avro", avroSchema: AVRO, "basic.auth.user.info": "reader:pw-secret" },
      "basic.auth.user.info is set but schema.registry.url is not: set the registry's URL too, or drop basic.auth.user.info",
    ],
    ["an unknown format", { valueFormat: "xml" }, 'option "valueFormat": valueFormat must be json, avro or protobuf (got "xml")'],
    ["avroSchema with JSON values", { avroSchema: AVRO }, "avroSchema applies to Avro values, but valueFormat is json: set valueFormat to avro, or remove avroSchema"],
    [
      "Protobuf options with Avro values",
      { valueFormat: "avro", avroSchema: AVRO, "protobuf.messageName": "shop.Order", "enums.as.ints": true },
      "protobuf.messageName, enums.as.ints apply to Protobuf values, but valueFormat is avro: set valueFormat to protobuf, or remove them",
    ],
    [
      "a registry with JSON values",
      { "schema.registry.url": "http://reader:pw-secret@127.0.0.1:1" },
      "schema.registry.url applies to Avro and Protobuf values (the Confluent wire format), but valueFormat is json: set valueFormat to avro or protobuf, or remove the registry options",
    ],
    [
      "Avro with neither a schema nor a registry",
      { valueFormat: "avro" },
      "valueFormat avro needs avroSchema, the writer schema of the values (plain Avro datums), or schema.registry.url for values in the Confluent wire format (writer schemas by id)",
    ],
    [
      "a corrupt-record column for Avro",
      { valueFormat: "avro", avroSchema: AVRO, columnNameOfCorruptRecord: "bad" },
      "columnNameOfCorruptRecord does not apply to Avro values: as Spark's from_avro, a malformed record is a row of nulls in PERMISSIVE mode; set deadLetterTopic to keep its bytes",
    ],
    ["both Protobuf schema options", { valueFormat: "protobuf", "protobuf.messageName": "shop.Order", "protobuf.schema": PROTO, "protobuf.descriptorFile": "/tmp" }, "set protobuf.descriptorFile or protobuf.schema, not both"],
    [
      "no Protobuf schema",
      { valueFormat: "protobuf", "protobuf.messageName": "shop.Order" },
      "valueFormat protobuf needs the message's schema: protobuf.descriptorFile (a FileDescriptorSet, protoc --include_imports --descriptor_set_out) or protobuf.schema (the .proto text)",
    ],
    [
      "a descriptor file that is not there",
      { valueFormat: "protobuf", "protobuf.messageName": "shop.Order", "protobuf.descriptorFile": "/nonexistent/orders.desc" },
      "protobuf.descriptorFile \"/nonexistent/orders.desc\" cannot be read: ENOENT: no such file or directory, stat '/nonexistent/orders.desc'",
    ],
    [
      "a from_protobuf option Sluice cannot honour",
      { valueFormat: "protobuf", "protobuf.messageName": "shop.Order", "protobuf.schema": PROTO, "recursive.fields.max.depth": 3 },
      'option "recursive.fields.max.depth": recursive.fields.max.depth is not supported: recursive messages would be nested struct columns, which Sluice does not have yet (got 3)',
    ],
    [
      "an unknown registry option",
      { valueFormat: "avro", "schema.registry.url": REGISTRY, "schema.registry.timeout": 5 },
      'unknown option "schema.registry.timeout"; the schema registry options are schema.registry.url, basic.auth.*, bearer.auth.* and schema.registry.requestTimeoutMs, schema.registry.maxRetries, schema.registry.retryBackoffMs',
    ],
  ])("refuse %s, naming the option and the fix", (_, options, message) => {
    expect(failure(Order, options)).toBe(`OptionError: ${WHERE}: ${message}`);
  });

  it("need a record schema to decode into", () => {
    expect(failure(null, { valueFormat: "avro", avroSchema: AVRO })).toBe(`OptionError: ${WHERE}: valueFormat, avroSchema apply to decoded values; declare the record schema with .schema(z.object({ ... }))`);
    expect(failure(null, { "schema.registry.url": REGISTRY })).toBe(`OptionError: ${WHERE}: schema.registry.url applies to decoded values; declare the record schema with .schema(z.object({ ... }))`);
  });

  it("refuse columns the Avro schema cannot give, naming the column", () => {
    expect(failure(z.object({ id: z.string(), item: z.string() }), { valueFormat: "avro", avroSchema: AVRO })).toBe(
      `AnalysisError: ${WHERE} (valueFormat avro): column "id" is string, but the reader's Avro schema declares it an int, which reads as int32`,
    );
    expect(failure(z.object({ id: z.int32(), itme: z.string().nullable() }), { valueFormat: "avro", avroSchema: AVRO, "schema.registry.url": REGISTRY })).toBe(
      `AnalysisError: ${WHERE} (valueFormat avro): column "itme" is not a field of the Avro record shop.Order in avroSchema; its fields are id, item: ` +
        "add the field (with a default, for values written without it), or remove the column",
    );
  });

  it("never repeat a secret: not the registry's credentials, not the options an unknown option came with", () => {
    const secrets = {
      valueFormat: "avro",
      "schema.registry.url": "http://reader:url-secret@127.0.0.1:1",
      "kafka.security.protocol": "SASL_PLAINTEXT",
      "kafka.sasl.mechanism": "PLAIN",
      "kafka.sasl.jaas.config": 'org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password="jaas-secret";',
    };
    const messages = [
      failure(Order, { ...secrets, bogus: 1 }),
      failure(Order, { ...secrets, "basic.auth.user.info": "user-secret" }),
      failure(Order, { valueFormat: "avro", "schema.registry.url": REGISTRY, "bearer.auth.token": 12345678 }),
      failure(Order, { ...secrets, "schema.registry.maxRetries": -1 }),
    ];
    expect(messages).toEqual([
      `OptionError: ${WHERE}: option "(options)": Unrecognized key: "bogus"`,
      `OptionError: ${WHERE}: option "basic.auth.user.info": basic.auth.user.info must be "user:password" (for Confluent Cloud, the registry API key and secret)`,
      `OptionError: ${WHERE}: option "bearer.auth.token": bearer.auth.token must be text`,
      `OptionError: ${WHERE}: option "schema.registry.maxRetries": maxRetries must be 0 (one attempt) or more (got -1)`,
    ]);
    for (const m of messages) for (const secret of ["url-secret", "jaas-secret", "user-secret", "12345678"]) expect(m).not.toContain(secret);
  });

  it("keep the registry's options out of the source's own, and describe the source without them", () => {
    const desc = kafkaSourceDesc(
      { "kafka.bootstrap.servers": "127.0.0.1:1", subscribe: "orders", valueFormat: "AVRO", "schema.registry.url": REGISTRY, "basic.auth.user.info": "reader:pw-secret", "schema.registry.maxRetries": 1 },
      [{ name: "id", type: "int32", nullable: false }],
      true,
    );
    expect(JSON.stringify(desc.options)).not.toContain("pw-secret");
    expect(desc.values!.registry).toEqual({ "schema.registry.url": REGISTRY, "basic.auth.user.info": "reader:pw-secret", maxRetries: 1 });
    // No avroSchema: the columns are the reader, matched to each writer record's fields by name.
    expect(desc.values!.format).toEqual({ kind: "avro", writerSchema: null, readerSchema: null });
  });
});

describe("Kafka source Protobuf schemas, parsed when a query runs", () => {
  const read = (schema: z.ZodObject<any>, options: Record<string, string>) =>
    session.read
      .format("kafka")
      .option("kafka.bootstrap.servers", "127.0.0.1:1")
      .option("subscribe", "orders")
      .schema(schema)
      .options({ valueFormat: "protobuf", "protobuf.messageName": "shop.Order", ...options })
      .load()
      .collect()
      .then(
        () => undefined,
        (e: unknown) => e as Error,
      );
  const fromText = { "protobuf.schema": PROTO };

  it.each([
    ["a column the message lacks", Order.extend({ name: z.string() }), fromText, 'read.format("kafka") (valueFormat protobuf): column "name" is not a field of the Protobuf message shop.Order; its fields are id, item'],
    [
      "a column of another type",
      z.object({ id: z.string() }),
      fromText,
      'read.format("kafka") (valueFormat protobuf): column "id" is string, but Protobuf field 1 (id) of shop.Order is int32, read as int32: declare the column as int32',
    ],
    [
      "a corrupt-record column that is not binary",
      z.object({ id: z.int32(), _corrupt_record: z.string().nullable() }),
      fromText,
      'read.format("kafka") (valueFormat protobuf): the corrupt-record column "_corrupt_record" must be a nullable binary column (a record\'s bytes), but it is a string',
    ],
    ["a message the schema lacks", Order, { ...fromText, "protobuf.messageName": "shop.Refund" }, 'read.format("kafka"): protobuf.messageName: no Protobuf message named "shop.Refund" in the schema; its messages are shop.Order'],
    ["a schema that does not parse", Order, { "protobuf.schema": "message {" }, "read.format(\"kafka\"): protobuf.schema: cannot parse the Protobuf schema: illegal type name '{' (line 1)"],
  ])("refuse %s before any broker is asked", async (_, schema, options, message) => {
    const error = await read(schema, options);
    expect(error).toBeInstanceOf(AnalysisError);
    expect(error!.message).toBe(message);
  });

  it("refuse a descriptor file that holds no descriptor set", async () => {
    const dir = tempDir("sluice-descriptor-");
    try {
      const file = dir.path("orders.desc");
      writeFileSync(file, Uint8Array.of(0x0a, 0x05, 1));
      const error = await read(Order, { "protobuf.descriptorFile": file });
      expect(error).toBeInstanceOf(AnalysisError);
      expect(error!.message.startsWith(`read.format("kafka"): protobuf.descriptorFile "${file}": cannot read the FileDescriptorSet: `)).toBe(true);
    } finally {
      dir.remove();
    }
  });

  it("fail a streaming query when it starts, before any broker is asked", () =>
    testStream(kafka(Order.extend({ name: z.string() }), { valueFormat: "protobuf", "protobuf.messageName": "shop.Order", "protobuf.schema": PROTO }), "append").run(
      expectFailure(`${WHERE} (valueFormat protobuf): column "name" is not a field of the Protobuf message shop.Order; its fields are id, item`),
    ));

  it("are OptionErrors when an option itself is wrong, AnalysisErrors when the schema does not fit the columns", () => {
    expect(() => kafka(Order, { valueFormat: "protobuf" })).toThrow(OptionError);
    expect(() => kafka(Order.extend({ id: z.string() }), { valueFormat: "avro", avroSchema: AVRO })).toThrow(AnalysisError);
  });
});
