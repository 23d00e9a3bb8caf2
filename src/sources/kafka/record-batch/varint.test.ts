import { describe, expect, it } from "vitest";
import { readVarint, readVarlong, sizeOfVarint, sizeOfVarlong, varintCursor, writeVarint, writeVarlong } from "./varint.js";

function encodeVarint(value: number): number[] {
  const out = new Uint8Array(5);
  return Array.from(out.subarray(0, writeVarint(out, 0, value)));
}

function encodeVarlong(value: number): number[] {
  const out = new Uint8Array(10);
  return Array.from(out.subarray(0, writeVarlong(out, 0, value)));
}

describe("zigzag varints", () => {
  it("encodes the protocol's reference values", () => {
    expect(encodeVarint(0)).toEqual([0x00]);
    expect(encodeVarint(-1)).toEqual([0x01]);
    expect(encodeVarint(1)).toEqual([0x02]);
    expect(encodeVarint(-64)).toEqual([0x7f]);
    expect(encodeVarint(64)).toEqual([0x80, 0x01]);
    expect(encodeVarint(300)).toEqual([0xd8, 0x04]);
    expect(encodeVarint(2147483647)).toEqual([0xfe, 0xff, 0xff, 0xff, 0x0f]);
    expect(encodeVarint(-2147483648)).toEqual([0xff, 0xff, 0xff, 0xff, 0x0f]);
  });

  it("round-trips 32-bit values and reports where each ends", () => {
    for (const v of [0, 1, -1, 63, -64, 64, -65, 8191, 8192, 1 << 20, -(1 << 27), 2147483647, -2147483648]) {
      const bytes = Uint8Array.from([0xaa, ...encodeVarint(v), 0xbb]);
      expect(readVarint(bytes, 1)).toBe(v);
      expect(varintCursor.next).toBe(bytes.length - 1);
      expect(sizeOfVarint(v)).toBe(bytes.length - 2);
    }
  });

  it("round-trips varlongs beyond 32 bits, such as timestamp deltas of weeks or epoch times", () => {
    for (const v of [0, -1, 2147483648, -2147483649, 1714521600000, -1714521600000, 2 ** 52, -(2 ** 52)]) {
      const encoded = encodeVarlong(v);
      expect(readVarlong(Uint8Array.from(encoded), 0)).toBe(v);
      expect(varintCursor.next).toBe(encoded.length);
      expect(sizeOfVarlong(v)).toBe(encoded.length);
    }
    // 1714521600000 zigzags to 3429043200000: six 7-bit groups.
    expect(encodeVarlong(1714521600000)).toEqual([0x80, 0xc0, 0x9b, 0x97, 0xe6, 0x63]);
  });

  it("rejects varints longer than their type allows", () => {
    expect(() => readVarint(Uint8Array.from([0xff, 0xff, 0xff, 0xff, 0xff, 0x01]), 0)).toThrow("longer than 5 bytes");
    expect(() => readVarlong(new Uint8Array(11).fill(0xff), 0)).toThrow("longer than 10 bytes");
  });
});
