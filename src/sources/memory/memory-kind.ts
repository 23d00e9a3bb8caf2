import type { SourceKind } from "../source-kind.js";
import type { MemorySourceDesc, TableSourceDesc } from "./memory-desc.js";

const MEMORY_STREAM = "MemoryStream";

export const memoryKind: SourceKind<MemorySourceDesc> = {
  describe: (desc) => `${MEMORY_STREAM}[${desc.fields.map((f) => f.name).join(",")}]`,
  // A memory stream has no identity beyond its process (Spark's neither): any memory stream continues
  // one, whatever its columns; its offsets are counts of the blocks added, as they were.
  continues: (recorded) => recorded.startsWith(`${MEMORY_STREAM}[`),
  narrow: (desc) => desc,
  streamingRefusal: () => null,
};

export const tableKind: SourceKind<TableSourceDesc> = {
  describe: (desc) => `Table[${desc.tableId}]`,
  narrow: (desc) => desc,
  streamingRefusal: () => "Union between streaming and batch DataFrames/Datasets is not supported",
};
