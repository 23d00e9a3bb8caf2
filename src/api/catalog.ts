import type { TempViews } from "./temp-views.js";

/** Spark's `spark.catalog`, for what a Sluice session holds: temporary views and memory-sink tables. */
export class Catalog {
  /** @internal */
  constructor(
    private readonly views: TempViews,
    private readonly tables: () => readonly string[],
  ) {}

  /** Drops a temporary view; true when it existed (Spark's `dropTempView`). */
  dropTempView(viewName: string): boolean {
    return this.views.drop(viewName);
  }

  /** Whether SQL can read `name`: a temporary view or a memory sink's table. */
  tableExists(name: string): boolean {
    return this.views.get(name) !== undefined || this.tables().some((t) => t.toLowerCase() === name.toLowerCase());
  }

  /** The names of the temporary views (lower-cased, as Spark lists them) and memory-sink tables. */
  listTables(): string[] {
    return [...this.views.names(), ...this.tables()];
  }
}
