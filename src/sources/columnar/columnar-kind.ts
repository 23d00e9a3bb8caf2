import { describeFileSource } from "../file/describe-file-source.js";
import { type SourceKind, unsizableBatchesRefusal } from "../source-kind.js";
import type { ColumnarSourceDesc } from "./columnar-desc.js";

export const columnarKind: SourceKind<ColumnarSourceDesc> = {
  describe: (desc) => describeFileSource(desc.path),
  /** A columnar file is read column by column: only the needed columns are decoded at all. */
  narrow(desc, needed) {
    const fields = desc.fields.filter((f) => needed.has(f.name));
    return fields.length === 0 || fields.length === desc.fields.length ? desc : { ...desc, fields };
  },
  streamingRefusal: (_desc, trigger) => unsizableBatchesRefusal(trigger, "a file source", "use a processingTime trigger with maxFilesPerTrigger"),
};
