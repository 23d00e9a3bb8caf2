import { beforeEach, describe, expect, it } from "vitest";
import { BytesPool } from "./bytes-pool.js";

const MAX_KEPT_BYTES = 1024 * 1024;
let pool = new BytesPool(2, MAX_KEPT_BYTES);
const take = (bytes: number) => pool.take(bytes);
const giveBack = (buffer: Uint8Array) => pool.giveBack(buffer);
const kept = () => pool.size();

/** Empties the pool, so every test starts from a thread that has run no task. */
function drain(): void {
  while (kept().buffers > 0) take(1);
}

describe("BytesPool: large per-task buffers kept across tasks (two kept at most, here)", () => {
  beforeEach(() => {
    pool = new BytesPool(2, MAX_KEPT_BYTES);
  });

  it("hands a buffer given back to the next task that needs no more bytes than it holds", () => {
    const first = take(1000);
    expect(first.length).toBe(1000);
    giveBack(first);
    expect(kept()).toEqual({ buffers: 1, bytes: 1000 });
    expect(take(600)).toBe(first);
    expect(kept()).toEqual({ buffers: 0, bytes: 0 });
  });

  it("never hands one buffer to two tasks at once", () => {
    giveBack(new Uint8Array(100));
    const a = take(50);
    const b = take(50);
    expect(a).not.toBe(b);
  });

  it("takes the smallest buffer that fits, and drops a smaller one when none fits", () => {
    const small = new Uint8Array(100);
    const large = new Uint8Array(500);
    giveBack(large);
    giveBack(small);
    expect(take(80)).toBe(small);
    giveBack(small);
    const fresh = take(1000);
    expect(fresh.length).toBe(1000);
    expect(kept()).toEqual({ buffers: 1, bytes: 500 });
  });

  it("keeps at most two buffers, the largest, and none over the size limit, no views and no detached buffers", () => {
    for (const size of [10, 30, 20]) giveBack(new Uint8Array(size));
    expect(kept()).toEqual({ buffers: 2, bytes: 50 });
    drain();
    giveBack(new Uint8Array(new ArrayBuffer(MAX_KEPT_BYTES + 1)));
    giveBack(new Uint8Array(64).subarray(8));
    const transferred = new Uint8Array(64);
    structuredClone(transferred.buffer, { transfer: [transferred.buffer] });
    giveBack(transferred);
    expect(kept()).toEqual({ buffers: 0, bytes: 0 });
  });

  it("passes over a kept buffer that was detached after it came back", () => {
    const buffer = new Uint8Array(64);
    giveBack(buffer);
    structuredClone(buffer.buffer, { transfer: [buffer.buffer] });
    const taken = take(32);
    expect(taken === buffer).toBe(false);
    expect(taken.length).toBe(32);
  });
});
