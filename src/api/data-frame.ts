import type * as arrow from "apache-arrow";
import { type Batch, toRecordBatch } from "../batch/batch.js";
import { batchToRows } from "../batch/rows.js";
import { watermarkDelayMs } from "../config/watermark-delay.js";
import { AnalysisError } from "../errors/errors.js";
import { mapColumns, type Expr } from "../expr/ast.js";
import { generatorIndex } from "../expr/generator.js";
import type { JoinType, LogicalPlan, SortKey } from "../plan/logical.js";
import { isStreamingPlan, planChildren } from "../plan/logical.js";
import { schemaOf } from "../plan/schema-of.js";
import { describeFields } from "../schema/zod-schema.js";
import { formatTable } from "../sinks/format-table.js";
import type { Fields, RowOf, SchemaShape } from "../types/dtype.js";
import type { Ref } from "../types/expr-types.js";
import type {
  ColumnName,
  ColumnOf,
  DropSchema,
  ConditionJoinSchema,
  JoinHow,
  JoinSchema,
  RenameSchema,
  Selectable,
  SelectSchema,
  UnionInput,
  UnionSchema,
  WithColumnSchema,
} from "../types/schema-ops.js";
import { Column, type SortOrder } from "./column.js";
import { GroupedData } from "./grouped-data.js";
import { checkGroupingKeys, KeyValueGroupedData } from "./key-value-grouped-data.js";
import type { ExplainMode, SessionInternals } from "./session-internals.js";
import { DataStreamWriter } from "./data-stream-writer.js";

/** Names of S's timestamp columns: what `withWatermark` accepts. */
export type TimestampColumn<S extends SchemaShape> = {
  [K in ColumnName<S>]: S[K]["type"] extends "timestamp" ? K : never;
}[ColumnName<S>];

export type { JoinHow } from "../types/schema-ops.js";

/** `"window.start"`-style names for each window column of S. */
type FieldPath<S extends SchemaShape> = {
  [K in ColumnName<S>]: S[K]["type"] extends "window" ? `${K}.start` | `${K}.end` : never;
}[ColumnName<S>];
type Root<N extends string> = N extends `${infer W}.${"start" | "end"}` ? W : N;
type Leaf<N extends string> = N extends `${string}.${infer L extends "start" | "end"}` ? L : N;

/**
 * A distributed-in-spirit, typed collection of rows: Spark's DataFrame. Every method returns a new
 * DataFrame over a new logical plan; nothing runs until `collect()`/`show()` (static data) or
 * `writeStream...start()` (streams). `S` carries the column names and types, so a misspelt column
 * is a compile error.
 */
export class DataFrame<S extends SchemaShape = SchemaShape> {
  /** Phantom: the schema type. */
  declare readonly __schema?: S;

  /** @internal */
  constructor(
    readonly session: SessionInternals,
    readonly plan: LogicalPlan,
  ) {
    schemaOf(plan);
  }

  /** The columns, names and types as Sluice resolved them. */
  get schema(): Fields {
    return schemaOf(this.plan);
  }

  get columns(): ColumnName<S>[] {
    return this.schema.map((f) => f.name) as ColumnName<S>[];
  }

  /** True when the DataFrame reads at least one stream. */
  get isStreaming(): boolean {
    return isStreamingPlan(this.plan);
  }

  private derive(plan: LogicalPlan): DataFrame<any> {
    return new DataFrame(this.session, plan);
  }

  /**
   * A reference to one of this DataFrame's columns, checked against its schema. It stays bound
   * to this DataFrame: in a join condition it means this side's column even when the other side
   * has one of the same name (Spark's `df.col`).
   */
  col<const N extends ColumnName<S> | FieldPath<S>>(name: N): Column<Ref<N>, Root<N>, Leaf<N>> {
    const probe: Expr = { kind: "col", name, qualifier: planIdOf(this.plan) };
    new DataFrame(this.session, { kind: "project", input: this.plan, exprs: [probe] });
    return new Column(probe) as Column<Ref<N>, Root<N>, Leaf<N>>;
  }

  select<const Cs extends readonly Selectable<S>[]>(...cols: Cs): DataFrame<SelectSchema<S, Cs>> {
    const exprs = cols.map(toExprOfSelectable);
    // A select with explode(...) changes the row count: Spark's Generate, a plan node of its own.
    return this.derive({ kind: generatorIndex(exprs) < 0 ? "project" : "generate", input: this.plan, exprs });
  }

  filter(condition: ColumnOf<S>): DataFrame<S> {
    return this.derive({ kind: "filter", input: this.plan, condition: condition.expr });
  }

  /** Same as `filter`, as in Spark. */
  where(condition: ColumnOf<S>): DataFrame<S> {
    return this.filter(condition);
  }

  withColumn<const K extends string, C extends ColumnOf<S>>(name: K, value: C): DataFrame<WithColumnSchema<S, K, C>> {
    const exists = this.schema.some((f) => f.name === name);
    const exprs: Expr[] = this.schema.map((f): Expr =>
      f.name === name ? { kind: "alias", child: value.expr, name } : { kind: "col", name: f.name },
    );
    if (!exists) exprs.push({ kind: "alias", child: value.expr, name });
    return this.derive({ kind: generatorIndex(exprs) < 0 ? "project" : "generate", input: this.plan, exprs });
  }

  withColumnRenamed<const F extends ColumnName<S>, const T extends string>(existing: F, renamed: T): DataFrame<RenameSchema<S, F, T>> {
    // Spark ignores a rename of a column that does not exist; the type already forbids it here.
    const exprs = this.schema.map((f): Expr =>
      f.name === existing ? { kind: "alias", child: { kind: "col", name: f.name }, name: renamed } : { kind: "col", name: f.name },
    );
    return this.derive({ kind: "project", input: this.plan, exprs });
  }

  drop<const K extends ColumnName<S>>(...names: K[]): DataFrame<DropSchema<S, K>> {
    const gone = new Set<string>(names);
    const exprs = this.schema.filter((f) => !gone.has(f.name)).map((f): Expr => ({ kind: "col", name: f.name }));
    return this.derive({ kind: "project", input: this.plan, exprs });
  }

  /**
   * Rows of both DataFrames, matched by column position as Spark's `union`, with the first's names.
   * Column types widen as Spark's (int32 with int64 is int64, a number with a double is a double,
   * a string with a number or timestamp is a string) and a column is nullable where either is.
   * The type follows for DataFrames with the same column names.
   */
  union<S2 extends UnionInput<S>>(other: DataFrame<S2>): DataFrame<UnionSchema<S, S2>> {
    return this.derive({ kind: "union", inputs: [this.plan, other.plan] });
  }

  groupBy<const Ks extends readonly Selectable<S>[]>(...keys: Ks): GroupedData<S, SelectSchema<S, Ks>> {
    return new GroupedData<S, any>(this.session, this.plan, keys.map(toExprOfSelectable));
  }

  /**
   * Groups rows by key columns for `transformWithState` (Spark's `groupByKey`, whose key function
   * is here the key columns): the processor receives each key as an object of those columns.
   */
  groupByKey<const Ks extends readonly ColumnName<S>[]>(...keys: Ks): KeyValueGroupedData<S, Ks[number]> {
    checkGroupingKeys(keys);
    for (const k of keys) new DataFrame(this.session, { kind: "project", input: this.plan, exprs: [{ kind: "col", name: k }] });
    return new KeyValueGroupedData(this.session, this.plan, keys);
  }

  /**
   * Declares `eventTime` as this stream's event time, and that data later than `delayThreshold`
   * behind the latest event seen may be dropped (Spark's `withWatermark`). The delay is one of
   * Spark's interval strings ("10 minutes", `interval '1 02:03:04' day to second`; a month counts
   * as 31 days, a year as 12 months) or a number of milliseconds.
   */
  withWatermark(eventTime: TimestampColumn<S>, delayThreshold: string | number): DataFrame<S> {
    const delayMs = watermarkDelayMs(delayThreshold, eventTime);
    return this.derive({ kind: "watermark", input: this.plan, column: eventTime, delayMs });
  }

  /** Drops rows equal on `cols` (all columns when none are given) to an earlier row. */
  dropDuplicates(...cols: ColumnName<S>[]): DataFrame<S> {
    const columns = cols.length ? cols : this.schema.map((f) => f.name);
    return this.derive({ kind: "deduplicate", input: this.plan, columns, withinWatermark: false });
  }

  /** Drops duplicates on `cols` that arrive within the watermark delay of the first (Spark 3.5). */
  dropDuplicatesWithinWatermark(...cols: ColumnName<S>[]): DataFrame<S> {
    const columns = cols.length ? cols : this.schema.map((f) => f.name);
    return this.derive({ kind: "deduplicate", input: this.plan, columns, withinWatermark: true });
  }

  orderBy(...cols: (ColumnName<S> | SortOrder<ColumnName<S>> | ColumnOf<S>)[]): DataFrame<S> {
    const orders: SortKey[] = cols.map((c) =>
      typeof c === "string"
        ? { expr: { kind: "col", name: c }, ascending: true }
        : c instanceof Column
          ? { expr: c.expr, ascending: true }
          : { expr: c.expr, ascending: c.ascending },
    );
    return this.derive({ kind: "sort", input: this.plan, orders });
  }

  /** Same as `orderBy`. */
  sort(...cols: (ColumnName<S> | SortOrder<ColumnName<S>> | ColumnOf<S>)[]): DataFrame<S> {
    return this.orderBy(...cols);
  }

  limit(n: number): DataFrame<S> {
    return this.derive({ kind: "limit", input: this.plan, n });
  }

  /**
   * Joins with `right` (Spark's `join`), on columns present on both sides under the same names
   * (`usingColumns`: the keys appear once in the output) or on a condition over both sides'
   * columns (every column of both sides in the output; a right column whose name the left has
   * too is renamed `<name>_right`). `how`: inner (default), left / left_outer, right /
   * right_outer, full / outer / full_outer, left_semi, left_anti (the last two give the left
   * columns only). Two streams join with Spark's stream-stream semantics (state bounded by
   * watermarks and time-range conditions); a stream and a static DataFrame join by probing a hash
   * table of the static side, for the join types Spark allows (the stream on the preserved side).
   */
  join<S2 extends SchemaShape, const K extends ColumnName<S> & ColumnName<S2>, const How extends JoinHow = "inner">(
    right: DataFrame<S2>,
    on: K | readonly K[],
    how?: How,
  ): DataFrame<JoinSchema<S, S2, K, How>>;
  join<S2 extends SchemaShape, const How extends JoinHow = "inner">(
    right: DataFrame<S2>,
    condition: Column<any, ColumnName<S> | ColumnName<S2>, any>,
    how?: How,
  ): DataFrame<ConditionJoinSchema<S, S2, How>>;
  join(right: DataFrame<any>, on: string | readonly string[] | Column<any, any, any>, how?: string): DataFrame<any> {
    const joinType = normalizeJoinType(how ?? "inner");
    if (on instanceof Column) {
      const { rightPlan, condition } = bindJoinCondition(this.plan, right.plan, on.expr);
      return this.derive({ kind: "join", left: this.plan, right: rightPlan, on: [], condition, joinType });
    }
    const keys: string[] = typeof on === "string" ? [on] : [...on];
    if (keys.length === 0) throw new AnalysisError("join needs at least one key column");
    return this.derive({ kind: "join", left: this.plan, right: right.plan, on: keys, condition: null, joinType });
  }

  /**
   * Names this DataFrame for SQL (`session.sql("SELECT ... FROM name")`), replacing a view of the
   * same name, as Spark's `createOrReplaceTempView`. A stream's view gives streaming queries; a
   * watermark set with `withWatermark` before holds in SQL over the view.
   */
  createOrReplaceTempView(viewName: string): void {
    this.session.createTempView(viewName, this, true);
  }

  /** As `createOrReplaceTempView`, but fails (Spark's TEMP_TABLE_OR_VIEW_ALREADY_EXISTS) when the name is taken. */
  createTempView(viewName: string): void {
    this.session.createTempView(viewName, this, false);
  }

  // ---- actions on static DataFrames ----

  /** `action` names the work on the console progress bar. */
  private async execute(action: string): Promise<Batch> {
    if (this.isStreaming) {
      throw new AnalysisError("Queries with streaming sources must be executed with writeStream.start()");
    }
    return this.session.executeStatic(this.plan, action);
  }

  /** All rows as plain objects (timestamps as Date). */
  async collect(): Promise<RowOf<S>[]> {
    return batchToRows(await this.execute("collect")) as RowOf<S>[];
  }

  /** The rows as an Arrow table, without copying column buffers. */
  async toArrow(): Promise<arrow.Table> {
    const { Table } = await import("apache-arrow");
    return new Table(toRecordBatch(await this.execute("toArrow")));
  }

  /** Number of rows: a global `count(*)`, so that only the number travels (from workers, or from a Spark server). */
  async count(): Promise<number> {
    const counted = this.derive({ kind: "aggregate", input: this.plan, keys: [], aggs: [{ kind: "alias", child: { kind: "agg", fn: "count", child: null }, name: "count" }] });
    const rows = batchToRows(await counted.execute("count"));
    return Number((rows[0] as { count?: number | bigint } | undefined)?.count ?? 0);
  }

  /** Prints the first rows as a table, as Spark's `show()`: it reads one row more than it shows, to tell whether there are more. */
  async show(numRows = 20, truncate = true): Promise<void> {
    process.stdout.write(formatTable(await this.limit(numRows + 1).execute("show"), numRows, truncate));
  }

  printSchema(): void {
    process.stdout.write(`root\n${this.schema.map((f) => ` |-- ${f.name}: ${f.type} (nullable = ${f.nullable})`).join("\n")}\n`);
  }

  /**
   * The plan as text: Sluice's logical plan, indented, in an embedded session; Spark's plans
   * (Spark's `explain(mode)`: "simple" the physical plan, "extended" every stage) in a remote one.
   */
  explain(mode: ExplainMode = "simple"): Promise<string> {
    return this.session.explain(this.plan, mode);
  }

  toString(): string {
    return `DataFrame[${describeFields(this.schema)}]`;
  }

  /** Starts building a streaming query over this DataFrame. */
  get writeStream(): DataStreamWriter<S> {
    if (!this.isStreaming) {
      throw new AnalysisError("'writeStream' can be called only on streaming DataFrames; use collect() or show() on static data");
    }
    return new DataStreamWriter<S>(this.session, this.plan);
  }
}

export function toExprOfSelectable(c: string | Column<any, any, any>): Expr {
  return typeof c === "string" ? { kind: "col", name: c } : c.expr;
}

function normalizeJoinType(how: string): JoinType {
  switch (how.toLowerCase().replaceAll("_", "")) {
    case "inner":
      return "inner";
    case "left":
    case "leftouter":
      return "left";
    case "right":
    case "rightouter":
      return "right";
    case "full":
    case "outer":
    case "fullouter":
      return "full";
    case "leftsemi":
    case "semi":
      return "leftSemi";
    case "leftanti":
    case "anti":
      return "leftAnti";
    default:
      throw new AnalysisError(`join type "${how}" is not supported; use "inner", "left", "right", "full", "left_semi" or "left_anti"`);
  }
}

// ---- binding a join condition to the sides ----

const planIds = new WeakMap<LogicalPlan, number>();
let nextPlanId = 1;

/** A number naming a plan node, so a column from `df.col` can say which DataFrame it belongs to. */
function planIdOf(plan: LogicalPlan): number {
  let id = planIds.get(plan);
  if (id === undefined) planIds.set(plan, (id = nextPlanId++));
  return id;
}

/** Whether `plan` is, or has below it, the node a qualified column names. */
function holdsPlan(plan: LogicalPlan, id: number): boolean {
  return planIds.get(plan) === id || planChildren(plan).some((c) => holdsPlan(c, id));
}

/**
 * A join condition over the output of `left` and `right` as the join has it: each column is
 * bound to its side (by `df.col`, or by its name where only one side has it), and a right column
 * whose name the left has too is renamed `<name>_right` under the right side's plan.
 */
function bindJoinCondition(left: LogicalPlan, right: LogicalPlan, condition: Expr): { rightPlan: LogicalPlan; condition: Expr } {
  const leftNames = new Set(schemaOf(left).map((f) => f.name));
  const rightFields = schemaOf(right);
  const rightNames = new Set(rightFields.map((f) => f.name));
  const renamed = (name: string) => (leftNames.has(name) ? `${name}_right` : name);
  const sideOf = (e: Expr & { kind: "col" }): "left" | "right" => {
    const root = e.name.includes(".") ? e.name.slice(0, e.name.lastIndexOf(".")) : e.name;
    if (e.qualifier !== undefined) {
      const inLeft = holdsPlan(left, e.qualifier);
      const inRight = holdsPlan(right, e.qualifier);
      if (inLeft !== inRight) return inLeft ? "left" : "right";
      if (!inLeft) throw new AnalysisError(`column "${e.name}" of the join condition belongs to a DataFrame that is neither side of this join`);
    }
    if (leftNames.has(root) && rightNames.has(root)) {
      throw new AnalysisError(`column "${e.name}" of the join condition is ambiguous: both sides have it; name one side's with left.col("${e.name}") or right.col("${e.name}")`);
    }
    if (rightNames.has(root)) return "right";
    if (leftNames.has(root)) return "left";
    throw new AnalysisError(`column "${e.name}" of the join condition is on neither side of the join`);
  };
  const bound = mapColumns(condition, (e) => {
    if (sideOf(e) === "left") return { kind: "col", name: e.name };
    const dot = e.name.lastIndexOf(".");
    return { kind: "col", name: dot > 0 ? `${renamed(e.name.slice(0, dot))}${e.name.slice(dot)}` : renamed(e.name) };
  });
  const clashes = rightFields.some((f) => leftNames.has(f.name));
  const rightPlan: LogicalPlan = clashes
    ? { kind: "project", input: right, exprs: rightFields.map((f): Expr => (leftNames.has(f.name) ? { kind: "alias", child: { kind: "col", name: f.name }, name: renamed(f.name) } : { kind: "col", name: f.name })) }
    : right;
  return { rightPlan, condition: bound };
}
