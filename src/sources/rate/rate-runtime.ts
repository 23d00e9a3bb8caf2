import { SluiceError } from "../../errors/errors.js";
import type { SourceRuntime } from "../source-runtime.js";
import { generateRateRows } from "./generate-rate-rows.js";
import type { RateSourceDesc, RateSplit } from "./rate-desc.js";
import { RateStreamSource } from "./rate-source.js";

export const rateRuntime: SourceRuntime<RateSourceDesc, RateSplit> = {
  splitKind: "rate",
  openStream: (desc) => new RateStreamSource(desc),
  staticSplits: () => Promise.reject(new SluiceError("the rate source is a stream: read it with readStream and writeStream.start()")),
  readSplit: async (_desc, split) => generateRateRows(split),
  describeSplit: (split) => `rate source partition ${split.partition} of ${split.numPartitions}, sequence numbers [${split.startSeq}, ${split.endSeq})`,
};
