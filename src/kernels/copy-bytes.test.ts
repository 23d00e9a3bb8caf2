import { describe, expect, it } from "vitest";
import { copyBytes, ViewCache, viewOf } from "./copy-bytes.js";

/** Bytes 0, 1, 2, … (mod 251, so no period lines up with the 4-byte words). */
function counting(length: number): Uint8Array {
  return Uint8Array.from({ length }, (_, i) => i % 251);
}

describe("copyBytes", () => {
  // Every length up to past the switch to `set` (512), from and to unaligned positions of
  // arrays that are themselves offset into their buffers.
  const srcBuffer = counting(1_200);
  const src = srcBuffer.subarray(3);
  it.each([0, 1, 3, 4, 5, 35, 36, 37, 127, 128, 511, 512, 513, 1_024])("copies %i bytes exactly, touching nothing around them", (length) => {
    for (const [srcPos, dstPos] of [
      [0, 0],
      [1, 2],
      [5, 7],
    ] as const) {
      const dst = new Uint8Array(1_100).fill(0xee).subarray(1);
      copyBytes(src, viewOf(src), srcPos, dst, viewOf(dst), dstPos, length);
      const expected = new Uint8Array(1_099).fill(0xee);
      expected.set(src.subarray(srcPos, srcPos + length), dstPos);
      expect(dst).toEqual(expected);
    }
  });
});

describe("ViewCache", () => {
  it("makes a view once per array, over exactly its bytes", () => {
    const cache = new ViewCache();
    const a = counting(16).subarray(4, 12);
    const first = cache.of(a);
    expect(cache.of(a)).toBe(first);
    expect([first.byteOffset, first.byteLength, first.getUint8(0)]).toEqual([4, 8, 4]);
    const b = counting(8);
    const second = cache.of(b);
    expect(second).not.toBe(first);
    expect([second.byteOffset, second.byteLength]).toEqual([0, 8]);
  });
});
