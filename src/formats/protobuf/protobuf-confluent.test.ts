import { beforeAll, describe, expect, it } from "vitest";
import { field } from "../../batch/batch.js";
import { AnalysisError, MalformedRecordError } from "../../errors/errors.js";
import type { Fields } from "../../types/dtype.js";
import { schemaIdsIn } from "./confluent-framing.js";
import { messageNamed } from "./proto-descriptor.js";
import type { ProtoSchema } from "./proto-descriptor.js";
import { parseProtoSchema } from "./proto-schema.js";
import { decodeProtobufValues } from "./protobuf-values.js";
import type { ProtobufValuesOptions } from "./protobuf-values.js";
import { confluent, len, message, plainRows, valuesColumn, varint } from "./test-wire.js";

/**
 * Records in the Confluent wire format, written under two versions of one message: v1 (id 1) has
 * old_price, which v2 (id 2) removed, adding gift and a Refund message before Order (so Order is
 * message index [1] there).
 */
const V1 = 'syntax = "proto3"; package shop; message Order { int32 id = 1; string name = 2; double old_price = 3; }';
const V2 = 'syntax = "proto3"; package shop; message Refund { int32 order_id = 1; } message Order { int32 id = 1; string name = 2; bool gift = 4; }';
const NESTED = 'syntax = "proto3"; package shop; message Envelope { message Order { int32 id = 1; } }';
const CHANGED = 'syntax = "proto3"; package shop; message Order { string id = 1; }';

let writers: Map<number, ProtoSchema>;
beforeAll(async () => {
  writers = new Map([
    [1, await parseProtoSchema(V1)],
    [2, await parseProtoSchema(V2)],
    [5, await parseProtoSchema(NESTED)],
    [7, await parseProtoSchema(CHANGED)],
  ]);
});

const v1 = (id: number, name: string, price: number) => confluent(1, [0], message(varint(1, id), len(2, name), [0x19, ...new Uint8Array(new Float64Array([price]).buffer)]));
const v2 = (id: number, name: string, gift: boolean) => confluent(2, [1], message(varint(1, id), len(2, name), varint(4, gift ? 1 : 0)));

async function decode(readerText: string, records: readonly (readonly number[] | null)[], fields: Fields, options: Partial<ProtobufValuesOptions> = {}) {
  const reader = messageNamed(await parseProtoSchema(readerText), "shop.Order");
  const c = valuesColumn(records);
  const result = decodeProtobufValues(c.bytes, c.offsets, c.validity, fields, {
    message: reader,
    mode: "PERMISSIVE",
    confluent: { writerSchemas: writers },
    describeRecord: (i) => `offset ${i}`,
    ...options,
  });
  return { rows: plainRows(result.batch), malformedRows: [...result.malformedRows] };
}

describe("Confluent wire format: two writer schemas in one batch, read by field number", () => {
  const batch = () => [v1(1, "pen", 2.5), v2(2, "ink", true), null, v1(3, "pad", 4), v2(4, "nib", false)];

  it("a reader on v2 reads v1 records too: the removed field is skipped, the added one null", async () => {
    const { rows, malformedRows } = await decode(V2, batch(), [field("id", "int32"), field("name", "string"), field("gift", "boolean")]);
    expect(rows).toEqual([
      { id: 1, name: "pen", gift: null },
      { id: 2, name: "ink", gift: true },
      { id: null, name: null, gift: null },
      { id: 3, name: "pad", gift: null },
      { id: 4, name: "nib", gift: null }, // false is proto3's default: not written
    ]);
    expect(malformedRows).toEqual([]);
  });

  it("a reader on v1 reads v2 records: the field v2 removed is null, the one it added skipped", async () => {
    const { rows } = await decode(V1, batch(), [field("id", "int32"), field("old_price", "float64")]);
    expect(rows).toEqual([
      { id: 1, old_price: 2.5 },
      { id: 2, old_price: null },
      { id: null, old_price: null },
      { id: 3, old_price: 4 },
      { id: 4, old_price: null },
    ]);
  });

  it("schemaIdsIn lists the batch's writer ids, ascending, once each, skipping null and unframed records", () => {
    const c = valuesColumn([...batch(), [0x7b, 0x7d], [0, 0, 0]]);
    expect(schemaIdsIn(c.bytes, c.offsets, c.validity)).toEqual([1, 2]);
    expect(schemaIdsIn(new Uint8Array(0), new Int32Array(0), null)).toEqual([]);
  });
});

describe("Confluent wire format: records that do not fit", () => {
  const fields = [field("id", "int32")];

  it("are bad records when unframed, of an unknown id, of another message type or at an index the schema lacks", async () => {
    const records = [
      message(varint(1, 1), len(2, "unframed")), // no header
      confluent(9, [0], varint(1, 2)), // id 9 was not fetched
      confluent(5, [0, 0], varint(1, 3)), // shop.Envelope.Order, not shop.Order
      confluent(1, [3], varint(1, 4)), // V1 has one message
      confluent(1, [0], varint(1, 5)), // fine
    ];
    const messages: string[] = [];
    for (let i = 0; i < records.length; i++) {
      try {
        await decode(V1, [records[i]!], fields, { mode: "FAILFAST", describeRecord: () => `offset ${i}` });
        messages.push("no error");
      } catch (e) {
        expect(e).toBeInstanceOf(MalformedRecordError);
        messages.push((e as Error).message);
      }
    }
    expect(messages).toEqual([
      "malformed Protobuf at offset 0: not in the Confluent wire format: the value starts with byte 0x08, not the magic byte 0 that a schema registry serializer writes first",
      "Protobuf record does not match the schema at offset 1: schema id 9 is not among the writer schemas given (ids 1, 2, 5, 7)",
      "Protobuf record does not match the schema at offset 2: schema id 5 message index [0, 0] is the message shop.Envelope.Order, not the reader's shop.Order",
      "Protobuf record does not match the schema at offset 3: schema id 1 message index [3] names no message of that schema",
      "no error",
    ]);
    const permissive = await decode(V1, records, fields);
    expect(permissive.rows).toEqual([{ id: null }, { id: null }, { id: null }, { id: null }, { id: 5 }]);
    expect(permissive.malformedRows).toEqual([0, 1, 2, 3]);
  });

  it("a writer schema that changed a read field's type incompatibly is an AnalysisError naming both", async () => {
    await expect(decode(V1, [v1(1, "pen", 1), confluent(7, [0], len(1, "x"))], fields)).rejects.toThrow(
      new AnalysisError(
        "writer schema id 7 message index [0] (shop.Order) declares field 1 (id) as string, which the reader's field 1 (id), int32, cannot read: " +
          "Protobuf reads fields by number, and these types differ on the wire. Read the records written with it under a reader schema that keeps the writer's type, or leave the field out of the columns",
      ),
    );
    // The changed field is not read: nothing to refuse.
    expect((await decode(V1, [confluent(7, [0], len(1, "x"))], [field("name", "string")])).rows).toEqual([{ name: null }]);
  });

  it("wire-compatible type changes read fine (int32 written as int64, say)", async () => {
    writers.set(8, await parseProtoSchema('syntax = "proto3"; package shop; message Order { int64 id = 1; }'));
    expect((await decode(V1, [confluent(8, [0], varint(1, 2n ** 32n + 7n))], fields)).rows).toEqual([{ id: 7 }]);
    writers.delete(8);
  });
});
