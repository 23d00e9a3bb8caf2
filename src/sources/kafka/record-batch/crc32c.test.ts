import { describe, expect, it } from "vitest";
import { crc32c } from "./crc32c.js";

/** One bit at a time, straight from the definition, to check the sliced tables against. */
function bitwiseCrc32c(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0x82f63b78 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

describe("crc32c", () => {
  it("matches the standard check value and the iSCSI (RFC 3720) test vectors", () => {
    expect(crc32c(new TextEncoder().encode("123456789"))).toBe(0xe3069283);
    expect(crc32c(new Uint8Array(32))).toBe(0x8a9136aa);
    expect(crc32c(new Uint8Array(32).fill(0xff))).toBe(0x62a8ab43);
    expect(crc32c(Uint8Array.from({ length: 32 }, (_, i) => i))).toBe(0x46dd794e);
    expect(crc32c(Uint8Array.from({ length: 32 }, (_, i) => 31 - i))).toBe(0x113fdb5c);
    expect(crc32c(new Uint8Array(0))).toBe(0);
  });

  it("agrees with the bitwise definition at every alignment and length", () => {
    const data = Uint8Array.from({ length: 300 }, (_, i) => (i * 2654435761) >>> 24);
    for (let start = 0; start < 8; start++) {
      for (const length of [0, 1, 3, 7, 15, 16, 17, 31, 64, 100, 255]) {
        const slice = data.subarray(start, start + length);
        expect(crc32c(slice)).toBe(bitwiseCrc32c(slice));
        expect(crc32c(data, start, start + length)).toBe(bitwiseCrc32c(slice));
      }
    }
  });
});
