import * as arrow from "apache-arrow";
import type { Batch } from "../batch/batch.js";
import type { Fields } from "../types/dtype.js";
import type { TaskMetrics } from "../batch/task-metrics.js";
import type { InputSplit } from "../sources/input-split.js";
import type { ProcessorTask, ProcessorTaskResult } from "../operators/processor-task.js";
import type { InputTask, RealTimeTask, RealTimeTaskResult, Task, TaskResult } from "./protocol.js";

/**
 * Batches across the thread boundary. Arrow JS objects do not survive structured clone (their
 * classes are lost), so a batch travels as plain data: per column its type, length, null count,
 * bit offset, typed-array buffers and children; the receiver rebuilds it with `arrow.makeData`
 * around the very same buffers, without copying.
 *
 * Buffers are handed over in one of two ways:
 * - "transfer": moved, not copied (listed in `transfer`, detached on the sender). Only a view that
 *   covers its whole ArrayBuffer is moved as is: moving a partial view would detach everything
 *   else in the same buffer, so a slice is copied first. Small buffers (and slices) are copied
 *   into one buffer per message, which is moved: per-buffer costs dominate below ~64 KB.
 * - "share": copied once into one SharedArrayBuffer, which every later message shares without
 *   copying and without detaching anything. The pool sends task inputs this way: the driver keeps
 *   its batch intact (sources own it) and a retried task reuses the same message.
 * Views that already live in a SharedArrayBuffer are passed on as they are in both modes.
 */

export type Handoff = "transfer" | "share";

export type PackedType =
  | { readonly id: "utf8" }
  | { readonly id: "largeUtf8" }
  | { readonly id: "binary" }
  | { readonly id: "largeBinary" }
  | { readonly id: "bool" }
  | { readonly id: "int"; readonly bitWidth: 8 | 16 | 32 | 64; readonly signed: boolean }
  | { readonly id: "float"; readonly precision: arrow.Precision }
  | { readonly id: "timestamp"; readonly unit: arrow.TimeUnit; readonly timezone: string | null }
  | { readonly id: "date"; readonly unit: arrow.DateUnit }
  | { readonly id: "struct"; readonly fields: readonly { readonly name: string; readonly type: PackedType; readonly nullable: boolean }[] }
  | { readonly id: "list"; readonly item: { readonly name: string; readonly type: PackedType; readonly nullable: boolean } }
  | { readonly id: "dictionary"; readonly value: PackedType; readonly index: PackedType; readonly dictionaryId: number; readonly ordered: boolean };

export interface PackedColumn {
  readonly type: PackedType;
  readonly length: number;
  readonly nullCount: number;
  /** Bit offset into `validity` (and into `values` for booleans); fixed-width values start at row 0. */
  readonly offset: number;
  readonly validity: Uint8Array | null;
  readonly valueOffsets: Int32Array | BigInt64Array | null;
  readonly values: TypedArray | null;
  readonly children: readonly PackedColumn[];
  /** Dictionary chunks of a dictionary-encoded column. */
  readonly dictionary: readonly PackedColumn[] | null;
}

export interface PackedBatch {
  readonly fields: Fields;
  readonly numRows: number;
  readonly columns: readonly PackedColumn[];
}

export type PackedSplit = Exclude<InputSplit, { readonly kind: "batch" }> | { readonly kind: "batch"; readonly batch: PackedBatch };

/** A task as posted to a worker: its batches' buffers packed, everything else plain data already. */
export type PackedTask =
  | (Omit<InputTask, "split"> & { readonly split: PackedSplit })
  | RealTimeTask
  | (Omit<ProcessorTask, "input" | "initialState"> & { readonly input: PackedBatch | null; readonly initialState: PackedBatch | null });

export type PackedResult =
  | { readonly kind: "input"; readonly batch: PackedBatch; readonly metrics: TaskMetrics }
  | (Omit<RealTimeTaskResult, "batch"> & { readonly batch: PackedBatch })
  | (Omit<ProcessorTaskResult, "batch"> & { readonly batch: PackedBatch });

export interface Packed<T> {
  readonly payload: T;
  /** Buffers to list in `postMessage`'s transfer list (empty in "share" mode). */
  readonly transfer: ArrayBuffer[];
}

export type TypedArray =
  | Int8Array | Uint8Array | Uint8ClampedArray | Int16Array | Uint16Array | Int32Array | Uint32Array
  | Float32Array | Float64Array | BigInt64Array | BigUint64Array;

type DictionaryIndexType = ConstructorParameters<typeof arrow.Dictionary>[1];

type TypedArrayConstructor = new (buffer: ArrayBufferLike, byteOffset: number, length: number) => TypedArray;

/**
 * Views smaller than this travel copied into one buffer per message rather than one by one: every
 * buffer moved or shared costs a fixed amount on both sides of postMessage, far more than copying
 * a few kilobytes.
 */
const SMALL_VIEW_BYTES = 64 * 1024;

const align8 = (n: number) => (n + 7) & ~7;

/**
 * Collects the buffers of one message and decides, per view, whether it is moved, shared as it is,
 * or copied into the message's own buffer (the "arena": an ArrayBuffer that is moved, or a
 * SharedArrayBuffer in "share" mode).
 */
class BufferHandoff {
  readonly transfer: ArrayBuffer[] = [];
  private readonly moved = new Set<ArrayBufferLike>();
  /** View -> byte offset of its copy in the arena. */
  private readonly copies = new Map<TypedArray, number>();
  /** The same bytes reached through different view objects are copied once. */
  private readonly copiedRanges = new Map<string, number>();
  private readonly bufferIds = new Map<ArrayBufferLike, number>();
  private arenaBytes = 0;

  constructor(readonly mode: Handoff) {}

  take<T extends TypedArray>(view: T): T {
    const buffer = view.buffer;
    if (buffer instanceof SharedArrayBuffer) return view;
    const whole = view.byteOffset === 0 && view.byteLength === buffer.byteLength;
    if (this.mode === "transfer" && whole && view.byteLength >= SMALL_VIEW_BYTES) {
      if (!this.moved.has(buffer)) this.transfer.push(buffer as ArrayBuffer);
      this.moved.add(buffer);
      return view;
    }
    if (!this.copies.has(view)) {
      let bufferId = this.bufferIds.get(buffer);
      if (bufferId === undefined) this.bufferIds.set(buffer, (bufferId = this.bufferIds.size));
      const range = `${bufferId}:${view.byteOffset}:${view.byteLength}`;
      let offset = this.copiedRanges.get(range);
      if (offset === undefined) {
        offset = this.arenaBytes;
        this.copiedRanges.set(range, offset);
        this.arenaBytes += align8(view.byteLength);
      }
      this.copies.set(view, offset);
    }
    return view;
  }

  /** Copies the collected views into the arena; returns each view's replacement. */
  relocate(): Map<TypedArray, TypedArray> {
    const replacements = new Map<TypedArray, TypedArray>();
    if (this.copies.size === 0) return replacements;
    const arena = this.mode === "share" ? new SharedArrayBuffer(this.arenaBytes) : new ArrayBuffer(this.arenaBytes);
    for (const [view, offset] of this.copies) {
      const copy = new (view.constructor as TypedArrayConstructor)(arena, offset, view.length);
      copy.set(view as never);
      replacements.set(view, copy);
    }
    if (arena instanceof ArrayBuffer) this.transfer.push(arena);
    return replacements;
  }
}

function relocateColumn(c: PackedColumn, to: ReadonlyMap<TypedArray, TypedArray>): PackedColumn {
  const swap = <V extends TypedArray | null>(v: V): V => (v === null ? v : ((to.get(v) as V | undefined) ?? v));
  return {
    ...c,
    validity: swap(c.validity),
    valueOffsets: swap(c.valueOffsets),
    values: swap(c.values),
    children: c.children.map((child) => relocateColumn(child, to)),
    dictionary: c.dictionary?.map((d) => relocateColumn(d, to)) ?? null,
  };
}

export function packBatch(batch: Batch, handoff: Handoff = "transfer"): Packed<PackedBatch> {
  const buffers = new BufferHandoff(handoff);
  const payload = packBatchWith(batch, buffers);
  return { payload, transfer: buffers.transfer };
}

export function unpackBatch(p: PackedBatch): Batch {
  return { fields: p.fields, numRows: p.numRows, columns: p.columns.map(unpackColumn) };
}

/**
 * Packs a task: an input task's "batch" split and a processor task's input and initial state carry
 * buffers; everything else is plain data already.
 */
export function packTask(task: Task, handoff: Handoff = "transfer"): Packed<PackedTask> {
  const buffers = new BufferHandoff(handoff);
  if (task.kind === "processor") {
    const [input, initialState] = packBatchesWith([task.input, task.initialState], buffers);
    return { payload: { ...task, input: input!, initialState: initialState! }, transfer: buffers.transfer };
  }
  // A real-time task's splits are open-ended reads (Kafka partitions), never batches; its stop
  // flag lives in a SharedArrayBuffer, which the message shares.
  if (task.kind === "realTime") return { payload: task, transfer: [] };
  const split: PackedSplit = task.split.kind === "batch" ? { kind: "batch", batch: packBatchesWith([task.split.batch], buffers)[0]! } : task.split;
  return { payload: { ...task, split }, transfer: buffers.transfer };
}

export function unpackTask(p: PackedTask): Task {
  if (p.kind === "processor") return { ...p, input: unpackOrNull(p.input), initialState: unpackOrNull(p.initialState) };
  if (p.kind === "realTime") return p;
  const split: InputSplit = p.split.kind === "batch" ? { kind: "batch", batch: unpackBatch(p.split.batch) } : p.split;
  return { ...p, split };
}

export function packResult(result: TaskResult, handoff: Handoff = "transfer"): Packed<PackedResult> {
  const { payload, transfer } = packBatch(result.batch, handoff);
  return { payload: { ...result, batch: payload }, transfer };
}

export function unpackResult(p: PackedResult): TaskResult {
  return { ...p, batch: unpackBatch(p.batch) };
}

function unpackOrNull(p: PackedBatch | null): Batch | null {
  return p === null ? null : unpackBatch(p);
}

function packBatchWith(batch: Batch, buffers: BufferHandoff): PackedBatch {
  return packBatchesWith([batch], buffers)[0]!;
}

/** Packs several batches into one message: their small views share one arena, copied once. */
function packBatchesWith<B extends Batch | null>(batches: readonly B[], buffers: BufferHandoff): (B extends null ? PackedBatch | null : PackedBatch)[] {
  const drafts = batches.map((b) => (b === null ? null : b.columns.map((c) => packColumn(c, buffers))));
  const replacements = buffers.relocate();
  return batches.map((b, i) =>
    b === null ? null : { fields: b.fields, numRows: b.numRows, columns: drafts[i]!.map((c) => relocateColumn(c, replacements)) },
  ) as (B extends null ? PackedBatch | null : PackedBatch)[];
}

// ---- columns ----

function packColumn(data: arrow.Data, buffers: BufferHandoff): PackedColumn {
  const type = packType(data.type);
  const { length } = data;
  const nullCount = data.nullBitmap ? data.nullCount : 0;
  // Bit-addressed buffers start at bit `data.offset`: send only the bytes covering the rows.
  const firstByte = data.offset >> 3;
  const endByte = (data.offset + length + 7) >> 3;
  const offset = data.offset & 7;
  const validity = nullCount > 0 ? buffers.take((data.nullBitmap as Uint8Array).subarray(firstByte, endByte)) : null;
  const base = { type, length, nullCount, offset, validity, valueOffsets: null, values: null, children: [], dictionary: null };
  switch (type.id) {
    case "struct":
      return { ...base, children: data.children.map((c) => packColumn(c, buffers)) };
    case "list":
      return { ...base, ...packList(data, buffers) };
    case "bool":
      return { ...base, values: buffers.take((data.values as Uint8Array).subarray(firstByte, endByte)) };
    case "utf8":
    case "binary":
      return { ...base, ...packVariableWidth(data as arrow.Data<arrow.Utf8 | arrow.Binary>, buffers) };
    case "largeUtf8":
    case "largeBinary": {
      // Rare enough that the offsets are not rebased: the whole byte buffer goes along.
      const valueOffsets = buffers.take((data.valueOffsets as BigInt64Array).subarray(0, length + 1));
      return { ...base, valueOffsets, values: buffers.take(data.values as Uint8Array) };
    }
    case "dictionary": {
      const dictionary = (data.dictionary?.data ?? []).map((d) => packColumn(d, buffers));
      return { ...base, values: buffers.take((data.values as TypedArray).subarray(0, length)), dictionary };
    }
    default:
      // Fixed width: Arrow JS keeps these already sliced (row i is values[i * stride]).
      return { ...base, values: buffers.take((data.values as TypedArray).subarray(0, length * data.stride)) };
  }
}

/**
 * A list's offsets and its child's entries; a slice (first offset not 0) is rebased, and only the
 * entries it holds travel.
 */
function packList(data: arrow.Data, buffers: BufferHandoff): { valueOffsets: Int32Array; children: PackedColumn[] } {
  const offsets = (data.valueOffsets as Int32Array).subarray(0, data.length + 1);
  const start = offsets[0] ?? 0;
  const end = offsets[data.length] ?? 0;
  const child = data.children[0]!;
  if (start === 0 && end === child.length) return { valueOffsets: buffers.take(offsets), children: [packColumn(child, buffers)] };
  const rebased = new Int32Array(offsets.length);
  for (let i = 0; i < offsets.length; i++) rebased[i] = offsets[i]! - start;
  return { valueOffsets: buffers.take(rebased), children: [packColumn(child.slice(start, end - start), buffers)] };
}

/** Utf8 or Binary offsets and bytes; a slice (first offset not 0) is rebased so only its own bytes travel. */
function packVariableWidth(data: arrow.Data<arrow.Utf8 | arrow.Binary>, buffers: BufferHandoff): { valueOffsets: Int32Array; values: Uint8Array } {
  const offsets = data.valueOffsets.subarray(0, data.length + 1);
  const start = offsets[0] ?? 0;
  const end = offsets[data.length] ?? 0;
  const bytes = data.values.subarray(start, end);
  if (start === 0) return { valueOffsets: buffers.take(offsets), values: buffers.take(bytes) };
  const rebased = new Int32Array(offsets.length);
  for (let i = 0; i < offsets.length; i++) rebased[i] = offsets[i]! - start;
  return { valueOffsets: buffers.take(rebased), values: buffers.take(bytes) };
}

function unpackColumn(p: PackedColumn): arrow.Data {
  const type = unpackType(p.type);
  const common = { type, offset: p.offset, length: p.length, nullCount: p.nullCount, nullBitmap: p.validity ?? undefined };
  // makeData's overloads are keyed by the static type; here the type is only known at run time.
  const make = arrow.makeData as unknown as (props: Record<string, unknown>) => arrow.Data;
  switch (p.type.id) {
    case "struct":
      return make({ ...common, children: p.children.map(unpackColumn) });
    case "list":
      return make({ ...common, valueOffsets: p.valueOffsets, child: unpackColumn(p.children[0]!) });
    case "utf8":
    case "largeUtf8":
    case "binary":
    case "largeBinary":
      return make({ ...common, valueOffsets: p.valueOffsets, data: p.values });
    case "dictionary":
      return make({ ...common, data: p.values, dictionary: new arrow.Vector((p.dictionary ?? []).map(unpackColumn)) });
    default:
      return make({ ...common, data: p.values });
  }
}

// ---- types ----

function packType(t: arrow.DataType): PackedType {
  if (arrow.DataType.isUtf8(t)) return { id: "utf8" };
  if (arrow.DataType.isLargeUtf8(t)) return { id: "largeUtf8" };
  if (arrow.DataType.isBinary(t)) return { id: "binary" };
  if (arrow.DataType.isLargeBinary(t)) return { id: "largeBinary" };
  if (arrow.DataType.isBool(t)) return { id: "bool" };
  if (arrow.DataType.isInt(t)) return { id: "int", bitWidth: t.bitWidth, signed: t.isSigned };
  if (arrow.DataType.isFloat(t)) return { id: "float", precision: t.precision };
  if (arrow.DataType.isTimestamp(t)) return { id: "timestamp", unit: t.unit, timezone: t.timezone ?? null };
  if (arrow.DataType.isDate(t)) return { id: "date", unit: t.unit };
  if (arrow.DataType.isStruct(t)) {
    return { id: "struct", fields: t.children.map((f) => ({ name: f.name, type: packType(f.type), nullable: f.nullable })) };
  }
  if (arrow.DataType.isList(t)) {
    const item = t.children[0]!;
    return { id: "list", item: { name: item.name, type: packType(item.type), nullable: item.nullable } };
  }
  if (arrow.DataType.isDictionary(t)) {
    return { id: "dictionary", value: packType(t.dictionary), index: packType(t.indices), dictionaryId: Number(t.id), ordered: t.isOrdered };
  }
  throw new TypeError(`Sluice cannot send a column of Arrow type ${t} between threads`);
}

function unpackType(p: PackedType): arrow.DataType {
  switch (p.id) {
    case "utf8":
      return new arrow.Utf8();
    case "largeUtf8":
      return new arrow.LargeUtf8();
    case "binary":
      return new arrow.Binary();
    case "largeBinary":
      return new arrow.LargeBinary();
    case "bool":
      return new arrow.Bool();
    case "int":
      return new arrow.Int(p.signed, p.bitWidth);
    case "float":
      return new arrow.Float(p.precision);
    case "timestamp":
      return new arrow.Timestamp(p.unit, p.timezone);
    case "date":
      return new arrow.Date_(p.unit);
    case "struct":
      return new arrow.Struct(p.fields.map((f) => new arrow.Field(f.name, unpackType(f.type), f.nullable)));
    case "list":
      return new arrow.List(new arrow.Field(p.item.name, unpackType(p.item.type), p.item.nullable));
    case "dictionary":
      return new arrow.Dictionary(unpackType(p.value), unpackType(p.index) as DictionaryIndexType, p.dictionaryId, p.ordered);
  }
}
