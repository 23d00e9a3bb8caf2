import type { Batch } from "../batch/batch.js";
import type { Fields } from "../types/dtype.js";

/**
 * What the SQL server needs from Sluice's SQL engine. The Session implements it over
 * `session.sql()` and hands itself in (api/ sits above this module: the server never imports it).
 */
export interface SqlEngine {
  /**
   * Parses and analyzes one statement against the session's tables and temp views; throws
   * ParseException or AnalysisError (carrying Spark's error class and SQLSTATE) when it cannot.
   */
  plan(text: string): SqlPlan | Promise<SqlPlan>;
}

export interface SqlPlan {
  /** The result's columns, known before it runs (a Describe answers with them). */
  readonly fields: Fields;
  /** True when the query reads a stream: it can only run as a streaming query, not be selected. */
  readonly isStreaming: boolean;
  /**
   * Runs the query once. Each memory-sink table it reads is read once, as it stands when the run
   * starts (a table is a list of immutable batches), so the result is one consistent snapshot
   * even while streams keep appending.
   */
  execute(): Promise<Batch>;
}
