import { AnalysisError } from "../errors/errors.js";
import { quoteName } from "../sql/sql-errors.js";
import type { DataFrame } from "./data-frame.js";

/**
 * A session's temporary views (Spark's session-local temp views): names SQL resolves to
 * DataFrames, streaming or static. Names are case-insensitive, as Spark's default.
 */
export class TempViews {
  private readonly views = new Map<string, DataFrame<any>>();

  /** `createTempView` (replace false) or `createOrReplaceTempView` (replace true). */
  create(name: string, df: DataFrame<any>, replace: boolean): void {
    if (name.trim() === "") throw new AnalysisError("a temporary view needs a name, e.g. df.createOrReplaceTempView(\"events\")");
    const key = name.toLowerCase();
    if (!replace && this.views.has(key)) {
      throw new AnalysisError(
        `[TEMP_TABLE_OR_VIEW_ALREADY_EXISTS] Cannot create the temporary view ${quoteName(name)} because it already exists. Choose a different name, drop or replace the existing view (createOrReplaceTempView). SQLSTATE: 42P07`,
        { errorClass: "TEMP_TABLE_OR_VIEW_ALREADY_EXISTS", sqlState: "42P07" },
      );
    }
    this.views.set(key, df);
  }

  get(name: string): DataFrame<any> | undefined {
    return this.views.get(name.toLowerCase());
  }

  /** Drops a view; true when it existed, as Spark's `catalog.dropTempView`. */
  drop(name: string): boolean {
    return this.views.delete(name.toLowerCase());
  }

  names(): string[] {
    return [...this.views.keys()];
  }
}
