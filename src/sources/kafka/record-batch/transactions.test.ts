import { describe, expect, it } from "vitest";
import { encodeRecordBatch } from "./encode.js";
import { concatBytes, decode } from "./test-support.js";

const T0 = 1714521600000;
const A = { producerId: 1000n, producerEpoch: 3 };
// A producer id beyond 2^53 must still match exactly.
const B = { producerId: 2n ** 62n + 1n, producerEpoch: 0 };

function data(offset: number, value: string, transactional?: typeof A): Uint8Array {
  return encodeRecordBatch([{ key: null, value, timestamp: T0 + offset }], { baseOffset: offset, ...(transactional ? { transactional } : {}) });
}

function marker(offset: number, producer: typeof A, control: "commit" | "abort"): Uint8Array {
  return encodeRecordBatch([], { baseOffset: offset, transactional: producer, control, controlTimestamp: T0 + offset });
}

/**
 * Two transactional producers interleaved with plain writes. A's first transaction aborts, its
 * second commits; B's first commits, its second aborts.
 */
const LOG = concatBytes(
  data(0, "a1", A),
  data(1, "b1", B),
  data(2, "p1"),
  data(3, "a2", A),
  marker(4, A, "abort"),
  data(5, "b2", B),
  marker(6, B, "commit"),
  data(7, "a3", A),
  marker(8, A, "commit"),
  data(9, "b3", B),
  marker(10, B, "abort"),
  data(11, "p2"),
);
/** What the broker lists for this log: each aborted transaction's producer and first offset. */
const ABORTED = [
  { producerId: B.producerId, firstOffset: 9 },
  { producerId: Number(A.producerId), firstOffset: 0 },
];

describe("read_committed", () => {
  it("drops exactly the aborted transactions' records", () => {
    const result = decode(LOG, { isolation: "read_committed", abortedTransactions: ABORTED });
    expect(result.rows.map((r) => [r.offset, r.value])).toEqual([
      [1, "b1"],
      [2, "p1"],
      [5, "b2"],
      [7, "a3"],
      [11, "p2"],
    ]);
    expect(result).toMatchObject({ abortedRecordsSkipped: 3, controlBatchesSkipped: 4, nextOffset: 12 });
  });

  it("keeps dropping an aborted transaction when the fetch starts inside it", () => {
    const fromThree = decode(LOG, { isolation: "read_committed", abortedTransactions: ABORTED, startOffset: 3 });
    expect(fromThree.rows.map((r) => r.value)).toEqual(["b2", "a3", "p2"]);
  });

  it("drops nothing when the broker lists no aborted transactions", () => {
    const result = decode(LOG, { isolation: "read_committed", abortedTransactions: [] });
    expect(result.rows.map((r) => r.value)).toEqual(["a1", "b1", "p1", "a2", "b2", "a3", "b3", "p2"]);
  });

  it("drops a multi-record aborted batch whole and counts its records", () => {
    const bytes = concatBytes(
      encodeRecordBatch(
        [
          { key: null, value: "x1", timestamp: T0 },
          { key: null, value: "x2", timestamp: T0 },
        ],
        { baseOffset: 20, transactional: A },
      ),
      marker(22, A, "abort"),
      data(23, "after"),
    );
    const result = decode(bytes, { isolation: "read_committed", abortedTransactions: [{ producerId: A.producerId, firstOffset: 20 }] });
    expect(result.rows.map((r) => r.value)).toEqual(["after"]);
    expect(result.abortedRecordsSkipped).toBe(2);
  });
});

describe("read_uncommitted", () => {
  it("returns every data record, aborted ones included, and no markers", () => {
    const result = decode(LOG, { isolation: "read_uncommitted", abortedTransactions: ABORTED });
    expect(result.rows.map((r) => [r.offset, r.value])).toEqual([
      [0, "a1"],
      [1, "b1"],
      [2, "p1"],
      [3, "a2"],
      [5, "b2"],
      [7, "a3"],
      [9, "b3"],
      [11, "p2"],
    ]);
    expect(result).toMatchObject({ abortedRecordsSkipped: 0, controlBatchesSkipped: 4 });
  });
});
