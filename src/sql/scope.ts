import type { DataFrame } from "../api/data-frame.js";
import { AnalysisError } from "../errors/errors.js";
import { type Expr, mapColumns } from "../expr/ast.js";
import type { SourceSpans } from "./source-spans.js";
import { lineAndColumn, quoteName, sqlAnalysisError, sqlContext, type SqlErrorClass } from "./sql-errors.js";

/**
 * What a SQL name can refer to at one point of a query: the columns of the relation built so far,
 * each with the qualifier it answers to (a view's name or alias, a subquery's alias) and the name
 * the column has in the DataFrame (a join renames a right column whose name the left has to
 * `<name>_right`, as the DataFrame API does). Names match case-insensitively, as Spark's default
 * (`spark.sql.caseSensitive=false`) does; the column keeps the name its DataFrame gave it.
 */
export interface ScopeColumn {
  readonly qualifier: string | null;
  /** The name SQL text uses for it. */
  readonly name: string;
  /** The column's name in the DataFrame. */
  readonly column: string;
}

export interface Scoped {
  readonly df: DataFrame<any>;
  readonly columns: readonly ScopeColumn[];
}

/** What the translator needs besides the query: the text and spans for errors, and the views. */
export interface SqlContext {
  readonly sql: string;
  readonly spans: SourceSpans;
  /** A temp view or memory-sink table by name (case-insensitively), or undefined. */
  readonly view: (name: string) => DataFrame<any> | undefined;
  /** A static DataFrame of one row, what a SELECT without FROM reads (its column is no name SQL sees). */
  readonly oneRow: () => DataFrame<any>;
}

export function sqlError(ctx: SqlContext, at: number | undefined, errorClass: SqlErrorClass, message: string): AnalysisError {
  return sqlAnalysisError(ctx.sql, at, errorClass, message);
}

/** The columns of a DataFrame, answering to `qualifier`. */
export function scopeOf(df: DataFrame<any>, qualifier: string | null): Scoped {
  return { df, columns: df.schema.map((f) => ({ qualifier, name: f.name, column: f.name })) };
}

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

export interface ResolvedColumn {
  readonly entry: ScopeColumn;
  /** A field path after the column (`start` of `window.start`), lower-cased; empty for none. */
  readonly fields: readonly string[];
}

/**
 * The scope column a reference names, or null. `a.b` is first read as column `b` of relation `a`,
 * then as field `b` of column `a` (Spark's order); a name two relations have is ambiguous.
 */
export function lookupColumn(ctx: SqlContext, ref: Expr & { kind: "col" }, columns: readonly ScopeColumn[]): ResolvedColumn | null {
  const parts = ctx.spans.partsOf(ref);
  const candidates: ResolvedColumn[][] = [];
  if (parts.length >= 2) {
    const qualified = columns.filter((c) => c.qualifier !== null && same(c.qualifier, parts[0]!) && same(c.name, parts[1]!));
    candidates.push(qualified.map((entry) => ({ entry, fields: parts.slice(2).map((p) => p.toLowerCase()) })));
  }
  const byName = columns.filter((c) => same(c.name, parts[0]!));
  const byColumn = byName.length ? byName : columns.filter((c) => same(c.column, parts[0]!));
  candidates.push(byColumn.map((entry) => ({ entry, fields: parts.slice(1).map((p) => p.toLowerCase()) })));
  for (const found of candidates) {
    if (found.length === 1) return found[0]!;
    if (found.length > 1) {
      const names = found.map((f) => (f.entry.qualifier ? quoteName(f.entry.qualifier, f.entry.name) : quoteName(f.entry.name)));
      throw sqlError(ctx, ctx.spans.offsetOf(ref), "AMBIGUOUS_REFERENCE", `Reference ${quoteName(...parts)} is ambiguous, could be: [${names.join(", ")}].`);
    }
  }
  return null;
}

/** The column expression of a resolved reference: its DataFrame name, and the field path. */
export function columnExpr(r: ResolvedColumn): Expr & { kind: "col" } {
  return { kind: "col", name: [r.entry.column, ...r.fields].join(".") };
}

/** Spark's UNRESOLVED_COLUMN error for `ref`, suggesting the closest names in scope. */
export function unresolvedColumn(ctx: SqlContext, ref: Expr & { kind: "col" }, columns: readonly ScopeColumn[]): AnalysisError {
  const parts = ctx.spans.partsOf(ref);
  const wanted = quoteName(...parts);
  const at = ctx.spans.offsetOf(ref);
  if (columns.length === 0) {
    return sqlError(ctx, at, "UNRESOLVED_COLUMN.WITHOUT_SUGGESTION", `A column, variable, or function parameter with name ${wanted} cannot be resolved.`);
  }
  const target = parts.join(".").toLowerCase();
  const suggestions = columns
    .map((c) => {
      const qualified = c.qualifier ? `${c.qualifier}.${c.name}` : c.name;
      return { text: c.qualifier ? quoteName(c.qualifier, c.name) : quoteName(c.name), d: editDistance(target, (parts.length > 1 ? qualified : c.name).toLowerCase()) };
    })
    .sort((a, b) => a.d - b.d)
    .slice(0, MAX_SUGGESTIONS)
    .map((s) => s.text);
  return sqlError(
    ctx,
    at,
    "UNRESOLVED_COLUMN.WITH_SUGGESTION",
    `A column, variable, or function parameter with name ${wanted} cannot be resolved. Did you mean one of the following? [${suggestions.join(", ")}].`,
  );
}

/** Spark lists the five closest names. */
const MAX_SUGGESTIONS = 5;

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length]!;
}

/** `e` with every column resolved in `columns`; an unknown name is Spark's UNRESOLVED_COLUMN. */
export function resolveExpr(ctx: SqlContext, e: Expr, columns: readonly ScopeColumn[]): Expr {
  return mapColumns(e, (ref) => {
    const found = lookupColumn(ctx, ref, columns);
    if (!found) throw unresolvedColumn(ctx, ref, columns);
    return columnExpr(found);
  });
}

/** `e` resolved in `columns`, or null when a name is not there. */
export function tryResolveExpr(ctx: SqlContext, e: Expr, columns: readonly ScopeColumn[]): Expr | null {
  let missing = false;
  const resolved = mapColumns(e, (ref) => {
    const found = lookupColumn(ctx, ref, columns);
    if (!found) missing = true;
    return found ? columnExpr(found) : ref;
  });
  return missing ? null : resolved;
}

/**
 * `e` with each column named as SQL sees it (`b.v` of a join is `v`, though the joined DataFrame
 * calls it `v_right`): what a select item is named after when it has no alias.
 */
export function displayExpr(ctx: SqlContext, e: Expr, columns: readonly ScopeColumn[]): Expr {
  return mapColumns(e, (ref) => {
    const found = lookupColumn(ctx, ref, columns);
    return found ? { kind: "col", name: [found.entry.name, ...found.fields].join(".") } : ref;
  });
}

/**
 * Runs a DataFrame builder for the clause at `at`: an analysis error of Sluice's own (a type
 * mismatch, say) gains where in the query it arose, with the `== SQL ==` block.
 */
export function atClause<T>(ctx: SqlContext, at: number | undefined, build: () => T): T {
  try {
    return build();
  } catch (error) {
    if (!(error instanceof AnalysisError) || error.errorClass !== undefined || at === undefined) throw error;
    const { line, column } = lineAndColumn(ctx.sql, at);
    throw new AnalysisError(`${error.message}; line ${line} pos ${column}\n\n${sqlContext(ctx.sql, line, column)}`, { cause: error });
  }
}
