import { afterEach, describe, expect, it } from "vitest";
import { giveBackValueBytes, keptValueBytes, MAX_KEPT_BYTES, takeValueBytes } from "./value-bytes-pool.js";

/** Empties the pool, so every test starts from a thread that has run no task. */
function drain(): void {
  while (keptValueBytes().buffers > 0) takeValueBytes(1);
}

describe("value bytes pool", () => {
  afterEach(drain);

  it("hands a buffer given back to the next task that needs no more bytes than it holds", () => {
    const first = takeValueBytes(1000);
    expect(first.length).toBe(1000);
    giveBackValueBytes(first);
    expect(keptValueBytes()).toEqual({ buffers: 1, bytes: 1000 });
    expect(takeValueBytes(600)).toBe(first);
    expect(keptValueBytes()).toEqual({ buffers: 0, bytes: 0 });
  });

  it("never hands one buffer to two tasks at once", () => {
    giveBackValueBytes(new Uint8Array(100));
    const a = takeValueBytes(50);
    const b = takeValueBytes(50);
    expect(a).not.toBe(b);
  });

  it("takes the smallest buffer that fits, and drops a smaller one when none fits", () => {
    const small = new Uint8Array(100);
    const large = new Uint8Array(500);
    giveBackValueBytes(large);
    giveBackValueBytes(small);
    expect(takeValueBytes(80)).toBe(small);
    giveBackValueBytes(small);
    const fresh = takeValueBytes(1000);
    expect(fresh.length).toBe(1000);
    expect(keptValueBytes()).toEqual({ buffers: 1, bytes: 500 });
  });

  it("keeps at most two buffers, the largest, and none over the size limit, no views and no detached buffers", () => {
    for (const size of [10, 30, 20]) giveBackValueBytes(new Uint8Array(size));
    expect(keptValueBytes()).toEqual({ buffers: 2, bytes: 50 });
    drain();
    giveBackValueBytes(new Uint8Array(new ArrayBuffer(MAX_KEPT_BYTES + 1)));
    giveBackValueBytes(new Uint8Array(64).subarray(8));
    const transferred = new Uint8Array(64);
    structuredClone(transferred.buffer, { transfer: [transferred.buffer] });
    giveBackValueBytes(transferred);
    expect(keptValueBytes()).toEqual({ buffers: 0, bytes: 0 });
  });

  it("passes over a kept buffer that was detached after it came back", () => {
    const buffer = new Uint8Array(64);
    giveBackValueBytes(buffer);
    structuredClone(buffer.buffer, { transfer: [buffer.buffer] });
    const taken = takeValueBytes(32);
    expect(taken === buffer).toBe(false);
    expect(taken.length).toBe(32);
  });
});
