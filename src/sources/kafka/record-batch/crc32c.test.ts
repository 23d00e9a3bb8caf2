import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { crc32c, crc32cImplementation, crc32cJs } from "./crc32c.js";

/** One bit at a time, straight from the definition, to check both implementations against. */
function bitwiseCrc32c(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0x82f63b78 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

/** Ranges short enough for the JS path and long enough for the native one, at 4-byte misalignments. */
const LENGTHS = [0, 1, 3, 7, 15, 16, 17, 31, 64, 100, 255, 256, 257, 1000, 4099, 16384];

const implementations = [
  { name: "crc32c (native for long ranges where it loads)", fn: crc32c },
  { name: "crc32cJs (the fallback)", fn: crc32cJs },
];

describe.each(implementations)("$name", ({ fn }) => {
  it("matches the standard check value and the iSCSI (RFC 3720) test vectors", () => {
    expect(fn(new TextEncoder().encode("123456789"))).toBe(0xe3069283);
    expect(fn(new Uint8Array(32))).toBe(0x8a9136aa);
    expect(fn(new Uint8Array(32).fill(0xff))).toBe(0x62a8ab43);
    expect(fn(Uint8Array.from({ length: 32 }, (_, i) => i))).toBe(0x46dd794e);
    expect(fn(Uint8Array.from({ length: 32 }, (_, i) => 31 - i))).toBe(0x113fdb5c);
    expect(fn(new Uint8Array(0))).toBe(0);
    // Long enough for the native path: 4 KiB of zeros and of 0xff.
    expect(fn(new Uint8Array(4096))).toBe(bitwiseCrc32c(new Uint8Array(4096)));
    expect(fn(new Uint8Array(4096).fill(0xff))).toBe(bitwiseCrc32c(new Uint8Array(4096).fill(0xff)));
  });

  it("agrees with the bitwise definition at every alignment and length, on views and on ranges", () => {
    const data = Uint8Array.from({ length: 16400 }, (_, i) => (i * 2654435761) >>> 24);
    for (let start = 0; start < 8; start++) {
      for (const length of LENGTHS) {
        const slice = data.subarray(start, start + length);
        const expected = bitwiseCrc32c(slice);
        expect(fn(slice)).toBe(expected);
        expect(fn(data, start, start + length)).toBe(expected);
      }
    }
  });

  it("reads a range of a view at a byte offset inside a larger buffer without touching bytes outside it", () => {
    const buffer = new Uint8Array(2048).fill(0xab);
    const view = buffer.subarray(5, 2043);
    view.set(new TextEncoder().encode("123456789"), 1500);
    expect(fn(view, 1500, 1509)).toBe(0xe3069283);
    expect(fn(view, 10, 1010)).toBe(bitwiseCrc32c(new Uint8Array(1000).fill(0xab)));
  });
});

describe("crc32cImplementation", () => {
  it("is native where @node-rs/crc32 and its platform binary load, as on this machine", () => {
    const loads = (() => {
      try {
        createRequire(import.meta.url)("@node-rs/crc32");
        return true;
      } catch {
        return false;
      }
    })();
    expect(crc32cImplementation).toBe(loads ? "native" : "js");
  });
});
