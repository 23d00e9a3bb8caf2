import type { SourceKind } from "../source-kind.js";
import type { MemorySourceDesc, TableSourceDesc } from "./memory-desc.js";

export const memoryKind: SourceKind<MemorySourceDesc> = {
  describe: (desc) => `MemoryStream[${desc.fields.map((f) => f.name).join(",")}]`,
  narrow: (desc) => desc,
  streamingRefusal: () => null,
};

export const tableKind: SourceKind<TableSourceDesc> = {
  describe: (desc) => `Table[${desc.tableId}]`,
  narrow: (desc) => desc,
  streamingRefusal: () => "Union between streaming and batch DataFrames/Datasets is not supported",
};
