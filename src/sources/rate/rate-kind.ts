import { type SourceKind, unsizableBatchesRefusal } from "../source-kind.js";
import type { RateSourceDesc } from "./rate-desc.js";

export const rateKind: SourceKind<RateSourceDesc> = {
  describe: (desc) => `RateStreamV2[rowsPerSecond=${desc.rowsPerSecond}, rampUpTimeSeconds=${desc.rampUpTimeMs / 1000}, numPartitions=${desc.numPartitions}]`,
  narrow: (desc) => desc,
  streamingRefusal: (_desc, trigger) =>
    trigger.kind === "availableNow"
      ? "the rate source does not support Trigger.AvailableNow: it never runs out of data"
      : unsizableBatchesRefusal(trigger, "the rate source (its batches hold the rows its clock generated)", "set the rate with rowsPerSecond"),
};
