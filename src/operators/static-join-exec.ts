import { randomUUID } from "node:crypto";
import { columnIndex, makeBatch, type Batch } from "../batch/batch.js";
import { AnalysisError, InternalError } from "../errors/errors.js";
import { gatherColumn, gatherOrNull } from "../kernels/gather.js";
import { buildJoinHashTable, hashKeys, probeJoinHashTable, type JoinHashTable } from "../kernels/join-hash.js";
import { keyColumn, shareKeyColumn, type KeyColumn } from "../kernels/join-hash-keys.js";
import type { Field } from "../types/dtype.js";
import { packBatch, unpackBatch, type PackedBatch } from "../workers/transfer.js";
import { BaseExec } from "./exec.js";

/**
 * Stream-static equi-join. The static side is read once per query and turned into a hash table
 * whose arrays, like the static rows themselves, live in SharedArrayBuffers: the table is plain
 * data, it goes into every task's `staticTables`, and posting it to a worker shares that memory
 * instead of copying it. Each split of the stream then probes it.
 *
 * Output: the stream's columns, then the static side's non-key columns (nullable in a left join,
 * where a stream row without a match gets nulls there). A stream row matching several static rows
 * gives several rows, in stream order and, within one stream row, in static insertion order. Null
 * keys never match, as in SQL.
 */
export interface StaticJoinTable {
  readonly kind: "sluice.static-join-table";
  /** Unique per build; a worker caches what it rebuilds from the table under this id. */
  readonly buildId: string;
  readonly on: readonly string[];
  readonly numRows: number;
  /** The static rows, every buffer in shared memory. */
  readonly batch: PackedBatch;
  /** The key columns in `on` order, as the kernels read them, in shared memory. */
  readonly keys: readonly KeyColumn[];
  readonly hash: JoinHashTable;
}

const KEY_TYPES = new Set(["string", "float64", "int32", "int64", "boolean", "timestamp"]);

export function buildStaticJoinTable(batch: Batch, on: readonly string[]): StaticJoinTable {
  if (on.length === 0) throw new AnalysisError("a join needs at least one key column");
  for (const name of on) checkKeyField(batch.fields[columnIndex(batch, name)]!);
  // One copy of the static rows into shared memory; everything after reads them in place.
  const packed = packBatch(batch, "share").payload;
  const shared = unpackBatch(packed);
  const keys = on.map((name) => shareKeyColumn(keyColumn(shared.columns[columnIndex(shared, name)]!)));
  const hash = buildJoinHashTable(keys, shared.numRows, (n) => new Int32Array(new SharedArrayBuffer(n * 4)));
  return { kind: "sluice.static-join-table", buildId: randomUUID(), on: [...on], numRows: shared.numRows, batch: packed, keys, hash };
}

export function probeStaticJoin(stream: Batch, table: StaticJoinTable, on: readonly string[], joinType: "inner" | "left"): Batch {
  const staticBatch = staticRows(table);
  const buildKeys = on.map((name) => {
    const k = table.on.indexOf(name);
    if (k < 0) throw new AnalysisError(`join key "${name}" is not a key of the static table (keys: ${table.on.join(", ")})`);
    return table.keys[k]!;
  });
  const probeKeys = on.map((name, k) => {
    const field = stream.fields[columnIndex(stream, name)]!;
    checkKeyField(field);
    const key = keyColumn(stream.columns[columnIndex(stream, name)]!);
    if (key.kind !== buildKeys[k]!.kind) {
      throw new AnalysisError(`join key "${name}" is ${field.type} on the stream side but not on the static side; cast one side so both match`);
    }
    return key;
  });
  const matches = probeJoinHashTable(table.hash, buildKeys, probeKeys, hashKeys(probeKeys, stream.numRows), 0, stream.numRows, joinType === "left");
  const count = matches.count;
  // The match lists have spare capacity past `count`.
  const probeRows = matches.probeRows.subarray(0, count);
  const buildRows = matches.buildRows.subarray(0, count);

  // The common lookup case (every stream row matches exactly once) keeps the stream columns as they are.
  const streamColumns = isIdentity(probeRows, stream.numRows) ? stream.columns : stream.columns.map((c) => gatherColumn(c, probeRows));
  const carried = staticBatch.fields.flatMap((f, i) => (on.includes(f.name) ? [] : [i]));
  const staticFields = carried.map((i): Field => {
    const f = staticBatch.fields[i]!;
    return joinType === "left" ? { ...f, nullable: true } : f;
  });
  // A left join's unmatched stream row has build row -1: nulls on the static side.
  const staticColumns = carried.map((i) => gatherOrNull(staticBatch.columns[i]!, buildRows));
  return makeBatch([...stream.fields, ...staticFields], [...streamColumns, ...staticColumns], count);
}

/**
 * Probes a stream-static join's shared hash table with each batch of the stream side (the table,
 * built once per query, comes through the context's static tables).
 */
export class StaticJoinExec extends BaseExec {
  constructor(
    readonly tableId: string,
    readonly on: readonly string[],
    readonly joinType: "inner" | "left",
  ) {
    super();
  }

  process(batch: Batch): Batch {
    const table = this.ctx.staticTables[this.tableId] as StaticJoinTable | undefined;
    if (table === undefined) throw new InternalError(`static join table ${this.tableId} was not built for this query`);
    return probeStaticJoin(batch, table, this.on, this.joinType);
  }
}

function checkKeyField(field: Field): void {
  if (!KEY_TYPES.has(field.type)) {
    throw new AnalysisError(`join key "${field.name}" is a ${field.type} column; join keys must be strings, numbers, booleans or timestamps`);
  }
}

function isIdentity(rows: Int32Array, numRows: number): boolean {
  if (rows.length !== numRows) return false;
  for (let i = 0; i < rows.length; i++) if (rows[i] !== i) return false;
  return true;
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

function staticRows(table: StaticJoinTable): Batch {
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
