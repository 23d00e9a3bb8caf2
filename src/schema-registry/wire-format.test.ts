import { describe, expect, it } from "vitest";
import { InternalError } from "../errors/errors.js";
import { RecordProblem } from "../formats/record-problem.js";
import { readWireHeader, wireHeader, wireHeaderLength, writeWireHeader } from "./wire-format.js";

const bytes = (...b: number[]) => Uint8Array.from(b);
const problem = (detail: string) => new RecordProblem("syntax", detail);

describe("Confluent wire format: reading a header", () => {
  it("reads magic byte 0 and the big-endian schema id; the payload follows at byte 5", () => {
    expect(readWireHeader(bytes(0, 0, 0, 0x01, 0xc8, 0x02, 0x61))).toEqual({ schemaId: 456, payloadOffset: 5 });
    expect(readWireHeader(bytes(0, 0x7f, 0xff, 0xff, 0xff))).toEqual({ schemaId: 2 ** 31 - 1, payloadOffset: 5 });
    // The top bit set: no Java writer makes it, and it reads as an id no registry has.
    expect(readWireHeader(bytes(0, 0xff, 0xff, 0xff, 0xfe))).toEqual({ schemaId: 2 ** 32 - 2, payloadOffset: 5 });
  });

  it("reads a value in place inside a larger buffer: a view, an offset and an end", () => {
    const buffer = bytes(9, 9, 9, 0, 0, 0, 0, 7, 0x41, 0, 0, 0, 0, 8, 0x42, 9);
    const view = buffer.subarray(3, 15);
    expect(readWireHeader(view)).toEqual({ schemaId: 7, payloadOffset: 5 });
    expect(readWireHeader(view, 6, { end: 12 })).toEqual({ schemaId: 8, payloadOffset: 11 });
    expect(readWireHeader(view, 6, { end: 10 })).toEqual(
      problem("not in the Confluent wire format: the value is 4 byte(s) long, shorter than its 5-byte header (magic byte 0 and a 4-byte schema id)"),
    );
  });

  it("reads the Protobuf message indexes: the single byte 0 is [0], else a zigzag count and zigzag indexes", () => {
    expect(readWireHeader(bytes(0, 0, 0, 0, 3, 0, 0x0a), 0, { protobuf: true })).toEqual({ schemaId: 3, payloadOffset: 6, messageIndexes: [0] });
    // [1]: count 1 (zigzag 2), index 1 (zigzag 2).
    expect(readWireHeader(bytes(0, 0, 0, 0, 3, 2, 2, 0x0a), 0, { protobuf: true })).toEqual({ schemaId: 3, payloadOffset: 7, messageIndexes: [1] });
    // [2, 0, 300]: count 3 (6), 2 (4), 0 (0), 300 (600 = 0xd8 0x04).
    expect(readWireHeader(bytes(0, 0, 0, 0, 3, 6, 4, 0, 0xd8, 0x04), 0, { protobuf: true })).toEqual({
      schemaId: 3,
      payloadOffset: 10,
      messageIndexes: [2, 0, 300],
    });
  });

  it("says why a value is not in the wire format, without throwing", () => {
    const cases: [Uint8Array, string][] = [
      [bytes(), "not in the Confluent wire format: the value is 0 byte(s) long, shorter than its 5-byte header (magic byte 0 and a 4-byte schema id)"],
      [bytes(0, 0, 0, 1), "not in the Confluent wire format: the value is 4 byte(s) long, shorter than its 5-byte header (magic byte 0 and a 4-byte schema id)"],
      [new TextEncoder().encode('{"n":1}'), "not in the Confluent wire format: the value starts with '{', not the magic byte 0 that a schema registry serializer writes first"],
      [bytes(1, 0, 0, 0, 1), "not in the Confluent wire format: the value starts with byte 0x01, not the magic byte 0 that a schema registry serializer writes first"],
    ];
    for (const [value, detail] of cases) expect(readWireHeader(value)).toEqual(problem(detail));
  });

  it("says why a Protobuf message-index list is corrupt", () => {
    const cases: [number[], string][] = [
      [[], "the Protobuf message-index list of the Confluent wire format ends inside its count"],
      [[4, 2, 0x80], "the Protobuf message-index list of the Confluent wire format ends inside its index 2 of 2"],
      [[4, 0x80, 0x80], "the Protobuf message-index list of the Confluent wire format ends inside its index 1 of 2"],
      [[0x80, 0x80, 0x80, 0x80, 0x80, 0], "the Protobuf message-index list of the Confluent wire format has a varint longer than 5 bytes in its count"],
      [[5, 0], "the Protobuf message-index list of the Confluent wire format has a count of -3, but 1 byte(s) follow it"],
      [[0xd0, 0x0f, 2], "the Protobuf message-index list of the Confluent wire format has a count of 1000, but 1 byte(s) follow it"],
      [[2, 1], "the Protobuf message-index list of the Confluent wire format has a negative index (-1)"],
    ];
    for (const [list, detail] of cases) expect(readWireHeader(bytes(0, 0, 0, 0, 9, ...list), 0, { protobuf: true })).toEqual(problem(detail));
  });
});

describe("Confluent wire format: writing a header", () => {
  it("writes the bytes Confluent's serializers write", () => {
    expect([...wireHeader(1)]).toEqual([0, 0, 0, 0, 1]);
    expect([...wireHeader(0x01020304)]).toEqual([0, 1, 2, 3, 4]);
    expect([...wireHeader(456, [0])]).toEqual([0, 0, 0, 1, 0xc8, 0]);
    expect([...wireHeader(456, [1])]).toEqual([0, 0, 0, 1, 0xc8, 2, 2]);
    expect([...wireHeader(456, [2, 0, 300])]).toEqual([0, 0, 0, 1, 0xc8, 6, 4, 0, 0xd8, 0x04]);
    expect([wireHeaderLength(), wireHeaderLength([0]), wireHeaderLength([1]), wireHeaderLength([2, 0, 300])]).toEqual([5, 6, 7, 10]);
  });

  it("writes into a view at an offset and returns where the payload goes; what it writes reads back", () => {
    const buffer = new Uint8Array(40).fill(0xee);
    const view = buffer.subarray(4, 36);
    let at = writeWireHeader(view, 0, 2 ** 31 - 1);
    at = writeWireHeader(view, at, 77, [2 ** 31 - 1, 5]);
    expect(at).toBe(5 + 5 + 1 + 5 + 1);
    expect(buffer.slice(0, 4)).toEqual(new Uint8Array(4).fill(0xee));
    expect(readWireHeader(view)).toEqual({ schemaId: 2 ** 31 - 1, payloadOffset: 5 });
    expect(readWireHeader(view, 5, { end: at, protobuf: true })).toEqual({ schemaId: 77, payloadOffset: at, messageIndexes: [2 ** 31 - 1, 5] });
    for (const indexes of [[0], [1], [0, 0], [127, 128, 16_383, 16_384]]) {
      expect(readWireHeader(wireHeader(12, indexes), 0, { protobuf: true })).toEqual({ schemaId: 12, payloadOffset: wireHeaderLength(indexes), messageIndexes: indexes });
    }
  });

  it("refuses an id or index a Java reader could not take, and a target too small", () => {
    expect(() => wireHeader(-1)).toThrow(new InternalError("a Confluent wire-format schema id is a whole number from 0 to 2147483647, got -1"));
    expect(() => wireHeader(2 ** 31)).toThrow(new InternalError("a Confluent wire-format schema id is a whole number from 0 to 2147483647, got 2147483648"));
    expect(() => wireHeader(1.5)).toThrow(new InternalError("a Confluent wire-format schema id is a whole number from 0 to 2147483647, got 1.5"));
    expect(() => wireHeader(1, [])).toThrow(new InternalError("a Protobuf message-index list names a message: it has at least one index"));
    expect(() => wireHeader(1, [0, -1])).toThrow(new InternalError("a Protobuf message index is a whole number from 0 to 2147483647, got -1"));
    expect(() => writeWireHeader(new Uint8Array(8), 4, 1)).toThrow(new InternalError("a 5-byte Confluent wire-format header does not fit at offset 4 of 8 byte(s)"));
  });
});
