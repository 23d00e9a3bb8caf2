import { describeFileSource } from "../file/describe-file-source.js";
import { narrowRecordFields, type SourceKind, unsizableBatchesRefusal } from "../source-kind.js";
import type { JsonSourceDesc } from "./json-desc.js";

export const jsonKind: SourceKind<JsonSourceDesc> = {
  describe: (desc) => describeFileSource(desc.path),
  narrow(desc, needed) {
    if (desc.options.mode !== "PERMISSIVE") return desc;
    const fields = narrowRecordFields(desc.fields, needed, desc.options.columnNameOfCorruptRecord);
    return fields === desc.fields ? desc : { ...desc, fields };
  },
  streamingRefusal: (_desc, trigger) => unsizableBatchesRefusal(trigger, "a file source", "use a processingTime trigger with maxFilesPerTrigger"),
};
