import { randomUUID } from "node:crypto";
import type * as arrow from "apache-arrow";
import type { Batch } from "../batch/batch.js";
import { AnalysisError } from "../errors/errors.js";
import type { Expr } from "../expr/ast.js";
import { compileExpr, evaluate } from "../expr/compile.js";
import { outputName } from "../expr/resolve.js";
import { buildJoinHashTable, type JoinHashTable } from "../kernels/join-hash.js";
import { keyColumn, shareKeyColumn, type KeyColumn } from "../kernels/join-hash-keys.js";
import type { DType } from "../types/dtype.js";
import { packBatch, unpackBatch, type PackedBatch } from "../workers/transfer.js";

/**
 * The static side of a stream-static join, built once per query into a hash table on its key
 * expressions. Its arrays, like the static rows themselves, live in SharedArrayBuffers: the table
 * is plain data, it goes into every task's `staticTables`, and posting it to a worker shares that
 * memory instead of copying it. A table without keys (a condition with no equality between the
 * sides) chains every row under one entry: each probe row then meets every static row.
 */
export interface StaticJoinTable {
  readonly kind: "sluice.static-join-table";
  /** Unique per build; a worker caches what it rebuilds from the table under this id. */
  readonly buildId: string;
  readonly numRows: number;
  /** The static rows, every buffer in shared memory. */
  readonly batch: PackedBatch;
  /** One key column per key expression, in the order the probing side lists its keys, in shared memory. */
  readonly keys: readonly KeyColumn[];
  readonly hash: JoinHashTable;
}

/** Column types the hash table compares: numbers (of any width), booleans and timestamps as doubles, strings by their bytes. */
const KEY_TYPES: ReadonlySet<DType> = new Set(["string", "float64", "int32", "int64", "boolean", "timestamp"]);

/** Whether an equality between these types can be a hash key (the others are checked per pair). */
export function isHashableKey(type: DType): boolean {
  return KEY_TYPES.has(type);
}

export function buildStaticJoinTable(batch: Batch, keys: readonly Expr[]): StaticJoinTable {
  // One copy of the static rows into shared memory; everything after reads them in place.
  const packed = packBatch(batch, "share").payload;
  const shared = unpackBatch(packed);
  const keyColumns = keys.map((k) => shareKeyColumn(joinKeyColumn(shared, k)));
  const hash = buildJoinHashTable(keyColumns, shared.numRows, (n) => new Int32Array(new SharedArrayBuffer(n * 4)));
  return { kind: "sluice.static-join-table", buildId: randomUUID(), numRows: shared.numRows, batch: packed, keys: keyColumns, hash };
}

/** A join key's values over a batch, as the hash kernels read them (a plain column is read in place). */
export function joinKeyColumn(batch: Batch, key: Expr): KeyColumn {
  const type = compileExpr(key, batch.fields).type.type;
  if (!isHashableKey(type)) {
    throw new AnalysisError(`join key "${outputName(key)}" is a ${type} column; join keys must be strings, numbers, booleans or timestamps`);
  }
  const data: arrow.Data = evaluate(key, batch);
  return keyColumn(data);
}

// ---- per-thread cache of the static rows rebuilt from shared memory ----

/**
 * Every message carries its own SharedArrayBuffer objects (the memory is shared, the JavaScript
 * objects are not), so a WeakMap on the buffer would miss on every task; the cache is keyed by
 * the table's build id instead, and bounded so a long-lived worker does not keep tables of
 * finished queries forever.
 */
const MAX_CACHED_TABLES = 16;
const rebuiltTables = new Map<string, Batch>();
let rebuildCount = 0;

/** The table's static rows as a batch, rebuilt once per thread. */
export function staticRows(table: StaticJoinTable): Batch {
  const cached = rebuiltTables.get(table.buildId);
  if (cached) return cached;
  const batch = unpackBatch(table.batch);
  rebuildCount++;
  rebuiltTables.set(table.buildId, batch);
  if (rebuiltTables.size > MAX_CACHED_TABLES) rebuiltTables.delete(rebuiltTables.keys().next().value!);
  return batch;
}

/** How many times this thread rebuilt a static table's rows (diagnostics and tests). */
export function staticJoinRebuildCount(): number {
  return rebuildCount;
}
