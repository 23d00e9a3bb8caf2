import type { Fields } from "../../types/dtype.js";

/** A `session.memoryStream(schema)`: blocks of rows added from code. */
export interface MemorySourceDesc {
  readonly format: "memory";
  readonly streamId: string;
  readonly fields: Fields;
}

/** Rows already in memory (`createDataFrame`, `fromArrow`, `session.table`), held by the session. */
export interface TableSourceDesc {
  readonly format: "table";
  readonly tableId: string;
  readonly fields: Fields;
}
