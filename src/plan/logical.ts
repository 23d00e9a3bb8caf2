import type { Expr } from "../expr/ast.js";
import type { KafkaSourceOptions } from "../config/kafka-options.js";
import type { Fields } from "../types/dtype.js";

/**
 * Logical plan nodes: plain nouns with a literal `kind`, built by the DataFrame API and never
 * mutated. A node holds data only, so a plan can be printed, compared, sent to a worker and
 * recorded in a checkpoint.
 */

/** Where rows come from; `streaming` sources are read batch by batch, static ones whole. */
export type SourceDesc =
  | { readonly format: "memory"; readonly streamId: string; readonly fields: Fields }
  | {
      readonly format: "rate";
      readonly rowsPerSecond: number;
      readonly numPartitions: number;
      readonly rampUpTimeMs: number;
    }
  | {
      readonly format: "json";
      readonly path: string;
      readonly fields: Fields;
      readonly options: JsonReadOptions;
    }
  /** Kafka topics (Spark's Kafka source); `options` are validated, `fields` the Kafka columns. */
  | {
      readonly format: "kafka";
      readonly options: KafkaSourceOptions;
      /** Fields of the JSON record schema given with `.schema()`, or null for raw key/value columns. */
      readonly valueFields: Fields | null;
      readonly fields: Fields;
    }
  /** Rows already in memory (`read.rows`, `read.arrow`, `session.table`): held by the session. */
  | { readonly format: "table"; readonly tableId: string; readonly fields: Fields };

export type ReadMode = "PERMISSIVE" | "DROPMALFORMED" | "FAILFAST";

export interface JsonReadOptions {
  readonly mode: ReadMode;
  /** Column that receives the raw text of malformed lines in PERMISSIVE mode, when present in the schema. */
  readonly columnNameOfCorruptRecord: string;
  readonly maxFilesPerTrigger: number | null;
  /** Only files whose whole name matches this glob are read, e.g. "*.jsonl" (Spark's pathGlobFilter). */
  readonly pathGlobFilter: string | null;
}

export interface SortKey {
  readonly expr: Expr;
  readonly ascending: boolean;
}

export type JoinType = "inner" | "left";

export type LogicalPlan =
  | { readonly kind: "source"; readonly streaming: boolean; readonly source: SourceDesc; readonly fields: Fields }
  /** Each expression yields one output column named by `outputName`. */
  | { readonly kind: "project"; readonly input: LogicalPlan; readonly exprs: readonly Expr[] }
  | { readonly kind: "filter"; readonly input: LogicalPlan; readonly condition: Expr }
  | { readonly kind: "union"; readonly inputs: readonly LogicalPlan[] }
  | { readonly kind: "watermark"; readonly input: LogicalPlan; readonly column: string; readonly delayMs: number }
  | {
      readonly kind: "aggregate";
      readonly input: LogicalPlan;
      readonly keys: readonly Expr[];
      readonly aggs: readonly Expr[];
    }
  | {
      readonly kind: "deduplicate";
      readonly input: LogicalPlan;
      /** Columns that identify a duplicate; all columns when `dropDuplicates()` got none. */
      readonly columns: readonly string[];
      readonly withinWatermark: boolean;
    }
  | { readonly kind: "sort"; readonly input: LogicalPlan; readonly orders: readonly SortKey[] }
  | { readonly kind: "limit"; readonly input: LogicalPlan; readonly n: number }
  /** Equi-join on columns of the same name (Spark's `join(other, usingColumns, how)`). */
  | {
      readonly kind: "join";
      readonly left: LogicalPlan;
      readonly right: LogicalPlan;
      readonly on: readonly string[];
      readonly joinType: JoinType;
    };

export type PlanKind = LogicalPlan["kind"];

export function planChildren(p: LogicalPlan): readonly LogicalPlan[] {
  switch (p.kind) {
    case "source":
      return [];
    case "union":
      return p.inputs;
    case "join":
      return [p.left, p.right];
    default:
      return [p.input];
  }
}

/** True when any leaf of the plan is a streaming source. */
export function isStreamingPlan(p: LogicalPlan): boolean {
  return p.kind === "source" ? p.streaming : planChildren(p).some(isStreamingPlan);
}
