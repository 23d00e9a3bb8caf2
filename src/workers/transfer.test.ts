import * as arrow from "apache-arrow";
import { describe, expect, it } from "vitest";
import { boolColumn, field, float64Column, makeBatch, readNumbers, validityFromBytes, type Batch } from "../batch/batch.js";
import { batchToRows, rowsToBatch } from "../batch/rows.js";
import { AnalysisError, MalformedRecordError, NumericRangeError, SchemaRegistryError, SluiceError } from "../errors/errors.js";
import type { InputPipeline } from "../planner/physical.js";
import type { InputTask as Task, InputTaskResult } from "./protocol.js";
import { rowsOf, sampleBatch } from "./testing/sample-batch.js";
import { packError, unpackError } from "./transfer-error.js";
import { packBatch, packResult, packTask, unpackBatch, unpackResult, unpackTask, type PackedBatch, type PackedColumn } from "./transfer.js";

/** What the other side of a postMessage would receive. */
function post<T>(payload: T, transfer: ArrayBuffer[]): T {
  return structuredClone(payload, { transfer });
}

function buffersOf(p: PackedBatch): ArrayBufferView[] {
  const out: ArrayBufferView[] = [];
  const visit = (c: PackedColumn) => {
    for (const b of [c.validity, c.valueOffsets, c.values]) if (b) out.push(b);
    c.children.forEach(visit);
    c.dictionary?.forEach(visit);
  };
  p.columns.forEach(visit);
  return out;
}

const align8 = (n: number) => Math.ceil(n / 8) * 8;

const pipeline = { sourceIndex: 0, source: { format: "memory" }, operators: [], outputFields: [] } as unknown as InputPipeline;
const context = { batchId: 3, watermarkMs: null, watermarkForLateEventsMs: null, batchTimestampMs: 1000 };

function slicedBatch(): Batch {
  const full = sampleBatch();
  const dictionary = arrow.vectorFromArray(["x", "ü", "x", null, "z"], new arrow.Dictionary(new arrow.Utf8(), new arrow.Int32())).data[0]!;
  const b = makeBatch([...full.fields, field("d", "string")], [...full.columns, dictionary]);
  // Rows 1..3 of every column: bit offsets, Utf8 offsets that do not start at 0, sliced children.
  return makeBatch(b.fields, b.columns.map((c) => c.slice(1, 3)));
}

describe("packBatch / unpackBatch", () => {
  it("round-trips every column type, nulls included, through structured clone with transfer", () => {
    const batch = sampleBatch();
    const expected = rowsOf(batch);
    const { payload, transfer } = packBatch(batch);
    const received = unpackBatch(post(payload, transfer));
    expect(received.fields).toEqual(batch.fields);
    expect(received.numRows).toBe(5);
    expect(rowsOf(received)).toEqual(expected);
    expect(expected[1]).toMatchObject({ s: null, f: null, i: null, l: null, b: null, t: null });
    expect(expected[2]).toMatchObject({ s: "héllo wörld", w: { start: 20, end: 30 } });
  });

  it("carries binary and headers columns, a slice of them sending only its own bytes and entries", () => {
    const rows = [
      { y: Uint8Array.of(0xff, 0), h: [{ key: "a", value: Uint8Array.of(1) }] },
      { y: null, h: [{ key: "b", value: null }, { key: "c", value: Uint8Array.of(2, 3) }] },
      { y: Uint8Array.of(), h: null },
      { y: Uint8Array.of(9), h: [] },
    ];
    const full = rowsToBatch(rows, [field("y", "binary"), field("h", "headers")]);
    const sliced = makeBatch(full.fields, full.columns.map((c) => c.slice(1, 2)));
    for (const [batch, expected] of [
      [full, rows],
      [sliced, rows.slice(1, 3)],
    ] as const) {
      const { payload, transfer } = packBatch(batch);
      const received = unpackBatch(post(payload, transfer));
      expect(received.columns.map((c) => String(c.type))).toEqual(["Binary", "List<Struct<{key:Utf8, value:Binary}>>"]);
      expect(batchToRows(received)).toEqual(expected);
    }
    const sent = packBatch(sliced).payload.columns[1]!;
    expect(sent.valueOffsets).toEqual(Int32Array.of(0, 2, 2));
    expect(sent.children[0]!.length).toBe(2);
  });

  it("carries 64-bit values and time units bit for bit: int64 beyond 2^53, Timestamp(us) with a zone, Date32", () => {
    const longs = arrow.makeData({ type: new arrow.Int64(), length: 3, data: BigInt64Array.of(2n ** 53n + 1n, -(2n ** 63n), 7n), nullBitmap: Uint8Array.of(0b011) });
    const micros = arrow.makeData({ type: new arrow.TimestampMicrosecond("Europe/Paris"), length: 3, data: BigInt64Array.of(-1n, 1_700_000_000_123_456n, 0n) });
    const days = arrow.makeData({ type: new arrow.DateDay(), length: 3, data: Int32Array.of(-1, 0, 19723) });
    const batch = makeBatch([field("l", "int64"), field("t", "timestamp"), field("d", "timestamp")], [longs, micros, days]);
    const { payload, transfer } = packBatch(batch);
    const received = unpackBatch(post(payload, transfer));
    expect(received.columns.map((c) => String(c.type))).toEqual(["Int64", "Timestamp<MICROSECOND, Europe/Paris>", "Date32<DAY>"]);
    expect(Array.from(received.columns[0]!.values as BigInt64Array).slice(0, 2)).toEqual([2n ** 53n + 1n, -(2n ** 63n)]);
    expect(received.columns[0]!.nullCount).toBe(1);
    // The readers on the far side convert them by the same rules as here.
    expect(Array.from(readNumbers(received.columns[1]!))).toEqual([-1, 1_700_000_000_123, 0]);
    expect(Array.from(readNumbers(received.columns[2]!))).toEqual([-86_400_000, 0, 19723 * 86_400_000]);
  });

  it("moves large whole buffers and copies small ones into one buffer per message", () => {
    const n = 100_000;
    const { bitmap, nullCount } = validityFromBytes(new Uint8Array(n).map((_, i) => (i % 3 === 0 ? 0 : 1)), n);
    const big = float64Column(new Float64Array(n).map((_, i) => i), bitmap, nullCount);
    const bigSlice = float64Column(new Float64Array(n + 30).map((_, i) => -i)).slice(10, n);
    const flags = boolColumn(new Uint8Array(n).fill(1), bitmap, nullCount); // 12.5 KB of bits
    const batch = makeBatch([field("big", "float64"), field("slice", "float64"), field("flag", "boolean")], [big, bigSlice, flags]);
    const { payload, transfer } = packTask({ kind: "input", pipeline, split: { kind: "batch", batch }, context, outputMode: "append", staticTables: {} });
    // The big whole buffer is moved as is; the big slice and the small buffers share one arena.
    expect(transfer).toHaveLength(2);
    expect(transfer).toContain(big.values.buffer);
    const arena = transfer.find((b) => b !== big.values.buffer)!;
    const bitmapBytes = align8(n / 8);
    // The validity bitmap shared by two columns is copied once.
    expect(arena.byteLength).toBe(n * 8 + bitmapBytes /* validity */ + bitmapBytes /* bool values */);
    const received = unpackTask(post(payload, transfer)) as Task;
    expect(big.values.byteLength).toBe(0); // moved: detached on this side
    expect(bigSlice.values[0]).toBe(-10); // copied: still readable here
    const columns = received.split.kind === "batch" ? received.split.batch.columns : [];
    expect(Array.from((columns[1]!.values as Float64Array).subarray(0, 2))).toEqual([-10, -11]);
    expect(columns[0]!.values[n - 1]).toBe(n - 1);
    expect(columns[0]!.nullCount).toBe(nullCount);
    expect(columns[0]!.nullBitmap!.buffer).toBe(columns[2]!.nullBitmap!.buffer);
  });

  it("copies partial views before moving them, so the rest of their buffer stays usable", () => {
    const batch = slicedBatch();
    const expected = rowsOf(batch);
    expect(expected.map((r) => r["d"])).toEqual(["ü", "x", null]);
    const floats = batch.columns[1]!.values as Float64Array; // rows 1..3 of a 5-row buffer
    const { payload, transfer } = packBatch(batch);
    const received = unpackBatch(post(payload, transfer));
    expect(rowsOf(received)).toEqual(expected);
    expect(transfer).not.toContain(floats.buffer);
    expect(Array.from(floats)).toEqual([0, -2, Number.NaN]); // copied, so still readable here
    // Only the rows' own bytes travel: Utf8 offsets rebased to 0, bitmaps trimmed to whole bytes.
    const s = received.columns[0]!;
    const utf8Length = (x: string) => new TextEncoder().encode(x).length;
    expect(Array.from(s.valueOffsets!)).toEqual([0, 0, utf8Length("héllo wörld"), utf8Length("héllo wörld日本語")]);
    expect((s.values as Uint8Array).length).toBe(utf8Length("héllo wörld日本語"));
    expect(received.columns[4]!.offset).toBe(1);
  });

  it("shares: copies into SharedArrayBuffers once, transfers nothing, leaves the sender's batch alone", () => {
    const batch = sampleBatch();
    const { payload, transfer } = packBatch(batch, "share");
    expect(transfer).toEqual([]);
    for (const b of buffersOf(payload)) expect(b.buffer).toBeInstanceOf(SharedArrayBuffer);
    const received = unpackBatch(post(payload, []));
    expect(rowsOf(received)).toEqual(rowsOf(batch));
    // Already-shared buffers are passed on as they are, in both modes.
    const again = packBatch(received, "transfer");
    expect(again.transfer).toEqual([]);
    expect(buffersOf(again.payload)[0]!.buffer).toBe(received.columns[0]!.nullBitmap!.buffer);
  });

  it("packs an empty batch", () => {
    const empty = makeBatch([field("x", "float64")], [arrow.makeData({ type: new arrow.Float64(), length: 0, data: new Float64Array(0) })]);
    const { payload, transfer } = packBatch(empty);
    expect(unpackBatch(post(payload, transfer)).numRows).toBe(0);
  });
});

describe("packTask / packResult", () => {
  it("round-trips a batch split and leaves other splits as plain data", () => {
    const batch = sampleBatch();
    const expected = rowsOf(batch);
    const task: Task = { kind: "input", pipeline, split: { kind: "batch", batch }, context, outputMode: "append", staticTables: { t: { n: 1 } } };
    const { payload, transfer } = packTask(task);
    const back = unpackTask(post(payload, transfer)) as Task;
    expect(back.split.kind === "batch" && rowsOf(back.split.batch)).toEqual(expected);
    expect(back.context).toEqual(context);
    expect(back.staticTables).toEqual({ t: { n: 1 } });

    const fileTask: Task = { ...task, split: { kind: "file", path: "/x.jsonl", start: 0, end: 10 } };
    const packedFile = packTask(fileTask);
    expect(packedFile.transfer).toEqual([]);
    expect((unpackTask(post(packedFile.payload, [])) as Task).split).toEqual(fileTask.split);
  });

  it("round-trips a result with its metrics", () => {
    const batch = sampleBatch();
    const expected = rowsOf(batch);
    const metrics = { numInputRows: 5, numRowsDroppedByWatermark: 1, numMalformedRecords: 2, eventTime: [null, { min: 1, max: 9, sum: 10, count: 2 }] };
    const { payload, transfer } = packResult({ kind: "input", batch, metrics });
    const back = unpackResult(post(payload, transfer)) as InputTaskResult;
    expect(rowsOf(back.batch)).toEqual(expected);
    expect(back.metrics).toEqual(metrics);
  });
});

describe("packError / unpackError", () => {
  const roundTrip = (e: unknown) => unpackError(post(packError(e), []));

  it("rebuilds Sluice's and JavaScript's classes with their fields", () => {
    const m = roundTrip(new MalformedRecordError("bad line", "/in.jsonl", 12));
    expect(m).toBeInstanceOf(MalformedRecordError);
    expect(m).toMatchObject({ name: "MalformedRecordError", message: "bad line", file: "/in.jsonl", line: 12 });
    expect(roundTrip(new AnalysisError("no column"))).toBeInstanceOf(AnalysisError);
    expect(roundTrip(new NumericRangeError("beyond 2^53"))).toBeInstanceOf(NumericRangeError);
    const registry = roundTrip(new SchemaRegistryError("no such schema", "http://127.0.0.1:1", "GET /schemas/ids/9", 404, 40403));
    expect(registry).toBeInstanceOf(SchemaRegistryError);
    expect(registry).toMatchObject({ message: "no such schema", url: "http://127.0.0.1:1", request: "GET /schemas/ids/9", status: 404, errorCode: 40403 });
    const r = roundTrip(new RangeError("too big"));
    expect(r).toBeInstanceOf(RangeError);
    expect(r.stack).toContain("too big");
  });

  it("keeps name and message of a class it cannot rebuild, as a SluiceError", () => {
    class VendorError extends Error {
      override name = "VendorError";
    }
    const e = roundTrip(new VendorError("vendor broke", { cause: Object.assign(new Error("socket"), { code: "ECONNRESET" }) }));
    expect(e).toBeInstanceOf(SluiceError);
    expect(e.name).toBe("VendorError");
    expect(e.message).toBe("vendor broke");
    expect(e.cause).toMatchObject({ message: "socket", code: "ECONNRESET" });
    const plain = roundTrip(Object.assign(new Error("renamed"), { name: "AbortError" }));
    expect(plain.constructor).toBe(Error);
    expect(plain.name).toBe("AbortError");
    expect(roundTrip("a thrown string")).toMatchObject({ message: "a thrown string" });
  });
});
