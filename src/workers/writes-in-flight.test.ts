import { describe, expect, it } from "vitest";
import { WritesInFlight } from "./writes-in-flight.js";

/** A write the test acknowledges or fails when it chooses. */
function write() {
  let ack!: () => void;
  let fail!: (e: Error) => void;
  const promise = new Promise<void>((resolve, reject) => {
    ack = resolve;
    fail = reject;
  });
  return { promise, ack, fail };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

describe("a real-time split's writes in flight", () => {
  it("goes on reading while writes are out, and moves its position on only as they are acknowledged, in order", async () => {
    const writes = new WritesInFlight(0);
    const acked: number[] = [];
    const a = write();
    const b = write();
    await writes.add(a.promise, 10, () => acked.push(10));
    await writes.add(b.promise, 20, () => acked.push(20));
    b.ack();
    await tick();
    // The later write came back first: nothing counts as written before the earlier one does.
    expect({ written: writes.written, acked }).toEqual({ written: 0, acked: [] });
    a.ack();
    await tick();
    expect({ written: writes.written, acked }).toEqual({ written: 20, acked: [10, 20] });
  });

  it("counts input without output as written once every write before it is", async () => {
    const writes = new WritesInFlight(0);
    const a = write();
    await writes.add(a.promise, 10, () => undefined);
    await writes.add(null, 15, () => undefined);
    await tick();
    expect(writes.written).toBe(0);
    a.ack();
    await writes.drain();
    expect(writes.written).toBe(15);
  });

  it("waits for the oldest write once `maxAhead` are out, so a slow sink slows reading", async () => {
    const writes = new WritesInFlight(0, 2);
    const [a, b, c] = [write(), write(), write()];
    await writes.add(a.promise, 1, () => undefined);
    await writes.add(b.promise, 2, () => undefined);
    let third = false;
    const adding = writes.add(c.promise, 3, () => undefined).then(() => (third = true));
    await tick();
    expect(third).toBe(false);
    a.ack();
    await adding;
    expect({ third, written: writes.written }).toEqual({ third: true, written: 1 });
  });

  it("fails at the next step after a write failed, and counts nothing after it as written", async () => {
    const writes = new WritesInFlight(0);
    const [a, b] = [write(), write()];
    await writes.add(a.promise, 10, () => undefined);
    await writes.add(b.promise, 20, () => undefined);
    a.fail(new Error("NOT_ENOUGH_REPLICAS"));
    b.ack();
    await expect(writes.drain()).rejects.toThrow("NOT_ENOUGH_REPLICAS");
    await expect(writes.add(null, 30, () => undefined)).rejects.toThrow("NOT_ENOUGH_REPLICAS");
    expect(writes.written).toBe(0);
  });
});
