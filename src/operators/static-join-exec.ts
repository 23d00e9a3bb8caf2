import type * as arrow from "apache-arrow";
import { makeBatch, type Batch } from "../batch/batch.js";
import { AnalysisError, InternalError } from "../errors/errors.js";
import { referencedColumns, type Expr } from "../expr/ast.js";
import { compileExpr } from "../expr/compile.js";
import { asBool, restrictValidity } from "../expr/eval-vec.js";
import { outputName } from "../expr/resolve.js";
import { gatherColumn, gatherOrNull, takeRows } from "../kernels/gather.js";
import { hashKeys, probeHasMatch, probeJoinHashTable, type HashedKeys, type JoinMatches } from "../kernels/join-hash.js";
import type { KeyColumn } from "../kernels/join-hash-keys.js";
import { keepPairs, matchedProbeRows, PairList, rowsFlagged, withUnmatchedRows } from "../kernels/join-pairs.js";
import { selectionFromMask } from "../kernels/select.js";
import type { StaticJoinSpec } from "../planner/physical.js";
import type { Fields } from "../types/dtype.js";
import { BaseExec } from "./exec.js";
import { joinKeyColumn, staticRows, type StaticJoinTable } from "./static-join-table.js";

/** A stream-static join as `probeStaticJoin` runs it: its spec without the table's id. */
export type StaticProbe = Omit<StaticJoinSpec, "op" | "tableId">;

/**
 * How many pairs a nested-loop join lists and checks at a time: every probe row meets every
 * static row, so the probe rows go a range at a time to bound the pairs (and the pair columns
 * gathered for the condition, half a megabyte per number column) whatever the two sides' sizes.
 */
const PAIRS_PER_RANGE = 1 << 16;

/**
 * Joins one batch of the probing side with the static table (see `StaticJoinSpec`). A probe row
 * with several pairs gives several rows, in probe order and, within one probe row, in static
 * insertion order; an outer join's unmatched row takes its place in that order. Null keys never
 * match, as in SQL. Without a pair condition a semi or anti join only asks whether a key is in
 * the table; with one, the pairs are listed, their columns the condition reads gathered, and the
 * compiled condition keeps a selection of them.
 */
export function probeStaticJoin(stream: Batch, table: StaticJoinTable, join: StaticProbe): Batch {
  const build = staticRows(table);
  if (join.probeKeys.length !== table.keys.length) {
    throw new InternalError(`a static join probes ${join.probeKeys.length} keys of a table built on ${table.keys.length}`);
  }
  const n = stream.numRows;
  const probeKeys = join.probeKeys.map((k, i) => probeKeyColumn(stream, k, table.keys[i]!));
  const hashed = onlyWhere(hashKeys(probeKeys, n), join.probeCondition, stream);
  const layout = layoutOf(stream.fields, build.fields, join);
  if (join.pairCondition === null) {
    switch (join.mode) {
      case "semi":
      case "anti":
        return probeRowsOnly(stream, rowsFlagged(probeHasMatch(table.hash, table.keys, probeKeys, hashed, n), join.mode === "semi" ? 1 : 0));
      case "inner":
      case "outer":
        return joinedRows(stream, build, probeJoinHashTable(table.hash, table.keys, probeKeys, hashed, 0, n, join.mode === "outer"), layout);
    }
  }
  const pairs = pairsWhere({ table, probeKeys, hashed }, stream, build, join.pairCondition, layout);
  switch (join.mode) {
    case "inner":
      return joinedRows(stream, build, pairs, layout);
    case "outer":
      return joinedRows(stream, build, withUnmatchedRows(pairs, n), layout);
    case "semi":
      return probeRowsOnly(stream, rowsFlagged(matchedProbeRows(pairs, n), 1));
    case "anti":
      return probeRowsOnly(stream, rowsFlagged(matchedProbeRows(pairs, n), 0));
  }
}

/**
 * Probes a stream-static join's shared hash table with each batch of the stream side (the table,
 * built once per query, comes through the context's static tables).
 */
export class StaticJoinExec extends BaseExec {
  constructor(readonly spec: StaticJoinSpec) {
    super();
  }

  process(batch: Batch): Batch {
    const table = this.ctx.staticTables[this.spec.tableId] as StaticJoinTable | undefined;
    if (table === undefined) throw new InternalError(`static join table ${this.spec.tableId} was not built for this query`);
    return probeStaticJoin(batch, table, this.spec);
  }
}

/** One batch's probe: the table, and the batch's key columns and their hashes. */
interface Probe {
  readonly table: StaticJoinTable;
  readonly probeKeys: readonly KeyColumn[];
  readonly hashed: HashedKeys;
}

function probeKeyColumn(stream: Batch, key: Expr, buildKey: KeyColumn): KeyColumn {
  const column = joinKeyColumn(stream, key);
  if (column.kind !== buildKey.kind) {
    throw new AnalysisError(`join key "${outputName(key)}" is a ${column.kind} on the stream side but a ${buildKey.kind} on the static side; cast one side so both match`);
  }
  return column;
}

/** The hashed keys with the rows failing the probing side's own condition (null counts as false) made unusable. */
function onlyWhere(hashed: HashedKeys, condition: Expr | null, batch: Batch): HashedKeys {
  if (condition === null) return hashed;
  const result = asBool(compileExpr(condition, batch.fields).run(batch));
  const passes = restrictValidity(result.valid, result.values);
  return { hashes: hashed.hashes, usable: hashed.usable === null ? passes : restrictValidity(hashed.usable, passes) };
}

/**
 * The pairs that pass `condition`, in probe order. A hash probe lists matches only and takes the
 * batch at once; a nested loop (no keys) goes a range of probe rows at a time.
 */
function pairsWhere(probe: Probe, stream: Batch, build: Batch, condition: Expr, layout: JoinLayout): JoinMatches {
  const { table, probeKeys, hashed } = probe;
  const numRows = stream.numRows;
  const check = (from: number, to: number): JoinMatches => {
    const matches = probeJoinHashTable(table.hash, table.keys, probeKeys, hashed, from, to, false);
    if (matches.count === 0) return matches;
    const pairs = pairBatch(stream, build, matches, layout);
    const result = asBool(compileExpr(condition, pairs.fields).run(pairs));
    return keepPairs(matches, selectionFromMask(result.values, result.valid, matches.count));
  };
  const step = table.keys.length > 0 ? numRows : Math.max(1, Math.floor(PAIRS_PER_RANGE / Math.max(1, table.numRows)));
  if (step >= numRows) return check(0, numRows);
  const kept = new PairList();
  for (let from = 0; from < numRows; from += step) kept.append(check(from, Math.min(numRows, from + step)));
  return kept.matches();
}

/** The columns the pair condition reads, gathered for each pair. */
function pairBatch(stream: Batch, build: Batch, matches: JoinMatches, layout: JoinLayout): Batch {
  const rows = { probe: matches.probeRows.subarray(0, matches.count), build: matches.buildRows.subarray(0, matches.count) };
  const columns = layout.pairColumns.map((c) => gatherColumn(columnAt(stream, build, c), rows[c.side]));
  return makeBatch(layout.pairFields, columns, matches.count);
}

/** Inner and outer joins' rows: the probe rows' columns and the carried static ones (null where the static row is -1). */
function joinedRows(stream: Batch, build: Batch, matches: JoinMatches, layout: JoinLayout): Batch {
  const probeRows = matches.probeRows.subarray(0, matches.count);
  const buildRows = matches.buildRows.subarray(0, matches.count);
  // The common lookup case (every stream row matches exactly once) keeps the stream columns as they are.
  const sameRows = isIdentity(probeRows, stream.numRows);
  const columns = layout.outputColumns.map((c): arrow.Data => {
    if (c.side === "build") return gatherOrNull(build.columns[c.index]!, buildRows);
    const column = stream.columns[c.index]!;
    return sameRows ? column : gatherColumn(column, probeRows);
  });
  return makeBatch(layout.outputFields, columns, matches.count);
}

/** Semi and anti joins' rows: the probe rows at `rows`, the batch itself when that is every row. */
function probeRowsOnly(stream: Batch, rows: Int32Array): Batch {
  return rows.length === stream.numRows ? stream : takeRows(stream, rows);
}

function isIdentity(rows: Int32Array, numRows: number): boolean {
  if (rows.length !== numRows) return false;
  for (let i = 0; i < rows.length; i++) if (rows[i] !== i) return false;
  return true;
}

// ---- where the output's and the pair condition's columns come from ----

interface ColumnRef {
  readonly side: "probe" | "build";
  readonly index: number;
}

interface JoinLayout {
  /** Inner and outer joins' output: the left side's columns, then the right side's, of the static side the carried ones. */
  readonly outputFields: Fields;
  readonly outputColumns: readonly ColumnRef[];
  /** The columns the pair condition reads, under their names in the pair of rows. */
  readonly pairFields: Fields;
  readonly pairColumns: readonly ColumnRef[];
}

function columnAt(stream: Batch, build: Batch, c: ColumnRef): arrow.Data {
  return (c.side === "probe" ? stream : build).columns[c.index]!;
}

/**
 * Computed once per join and pair of schemas, so every batch of a stream gets the same field
 * objects (which downstream compilation caches key on).
 */
const layouts = new WeakMap<StaticProbe, { readonly probe: Fields; readonly build: Fields; readonly layout: JoinLayout }>();

function layoutOf(probeFields: Fields, buildFields: Fields, join: StaticProbe): JoinLayout {
  const known = layouts.get(join);
  if (known !== undefined && known.probe === probeFields && known.build === buildFields) return known.layout;
  const layout = computeLayout(probeFields, buildFields, join);
  layouts.set(join, { probe: probeFields, build: buildFields, layout });
  return layout;
}

function computeLayout(probeFields: Fields, buildFields: Fields, join: StaticProbe): JoinLayout {
  const probeIsLeft = join.probeSide === "left";
  const rightFields = probeIsLeft ? buildFields : probeFields;
  if (join.rightPairNames.length !== rightFields.length) {
    throw new InternalError(`a static join names ${join.rightPairNames.length} right columns, but its right side has ${rightFields.length}`);
  }
  const side = (fields: Fields, s: ColumnRef["side"], names: readonly string[] | null) =>
    fields.map((f, index) => ({ field: names === null ? f : { ...f, name: names[index]! }, ref: { side: s, index } }));
  const pair = probeIsLeft
    ? [...side(probeFields, "probe", null), ...side(buildFields, "build", join.rightPairNames)]
    : [...side(buildFields, "build", null), ...side(probeFields, "probe", join.rightPairNames)];
  const carried = new Set(join.buildColumns);
  const output = pair.filter((c) => c.ref.side === "probe" || carried.has(c.ref.index));
  const reads = join.pairCondition === null ? [] : [...referencedColumns(join.pairCondition)];
  // A window's member (`w.start`) reads the window column.
  const read = pair.filter((c) => reads.some((r) => r === c.field.name || r.startsWith(`${c.field.name}.`)));
  return {
    outputFields: output.map((c) => (c.ref.side === "build" && join.mode === "outer" ? { ...c.field, nullable: true } : c.field)),
    outputColumns: output.map((c) => c.ref),
    pairFields: read.map((c) => c.field),
    pairColumns: read.map((c) => c.ref),
  };
}
