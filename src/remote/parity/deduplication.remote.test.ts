// Streaming deduplication, run embedded and on Spark (parity.ts): dropDuplicates without a watermark (state kept
// forever), with one (state of event times behind the watermark evicted, late rows dropped), and
// dropDuplicatesWithinWatermark (a key is a duplicate until the watermark passes its first event time plus the
// delay). Event times are whole seconds; the watermark is 10 s behind the largest event time seen.
import { describe, it } from "vitest";
import { z } from "zod";
import { col, timestamp_seconds } from "../../api/functions.js";
import type { Session } from "../../api/session.js";
import { batchFigures, events, isoSeconds, runBoth } from "../../testing/remote-parity.js";

const Event = z.object({ key: z.string(), time: z.int() });

function eventStream(session: Session, dir: string) {
  return session.readStream.schema(Event).option("maxFilesPerTrigger", 1).json(dir).withColumn("eventTime", timestamp_seconds(col("time")));
}

describe("deduplication, embedded and on Spark", () => {
  it("dropDuplicates(key) without a watermark: a key is written once, ever", () =>
    runBoth({
      name: "dedup_forever",
      outputMode: "append",
      query: (session, [dir]) => eventStream(session, dir!).dropDuplicates("key").select(col("key"), col("time")),
      steps: [
        // Exact copies in a batch, so that which copy is kept does not matter.
        { add: events(["a", 1], ["a", 1], ["b", 2]), table: events(["a", 1], ["b", 2]) },
        { add: events(["a", 500], ["c", 6]), table: events(["a", 1], ["b", 2], ["c", 6]) },
      ],
    }), 60_000);

  it("dropDuplicates(key, eventTime) with a watermark: late rows are dropped, whether duplicates or not", () =>
    runBoth({
      name: "dedup_watermark",
      outputMode: "append",
      query: (session, [dir]) =>
        eventStream(session, dir!).withWatermark("eventTime", "10 seconds").dropDuplicates("key", "eventTime").select(col("key"), col("time")),
      steps: [
        { add: events(["a", 10], ["a", 10], ["b", 12]), table: events(["a", 10], ["b", 12]) },
        // Watermark 2 s: a at 10 s is a duplicate; a at 11 s is another (key, eventTime).
        { add: events(["a", 10], ["a", 11], ["c", 30]), table: events(["a", 10], ["a", 11], ["b", 12], ["c", 30]) },
        // Watermark 20 s: both are behind it.
        { add: events(["a", 10], ["d", 15]), table: events(["a", 10], ["a", 11], ["b", 12], ["c", 30]) },
      ],
      progress: {
        read: batchFigures,
        expected: [
          { rows: 3, watermark: isoSeconds(0), dropped: 0 },
          { rows: 3, watermark: isoSeconds(2), dropped: 0 },
          { rows: 2, watermark: isoSeconds(20), dropped: 2 },
        ],
      },
    }), 60_000);

  it("dropDuplicatesWithinWatermark(key): a key comes out again once its state has expired", () =>
    runBoth({
      name: "dedup_within",
      outputMode: "append",
      query: (session, [dir]) =>
        eventStream(session, dir!).withWatermark("eventTime", "10 seconds").dropDuplicatesWithinWatermark("key").select(col("key"), col("time")),
      steps: [
        { add: events(["a", 1], ["b", 2]), table: events(["a", 1], ["b", 2]) },
        // a at 5 s is a duplicate (a's state lasts until the watermark reaches 1 + 10 s). Watermark then 15 s.
        { add: events(["a", 5], ["c", 25]), table: events(["a", 1], ["b", 2], ["c", 25]) },
        // a's state has expired: a at 20 s (in time) is written again; c at 26 s is still a duplicate.
        { add: events(["a", 20], ["c", 26]), table: events(["a", 1], ["b", 2], ["c", 25], ["a", 20]) },
      ],
    }), 60_000);

  it("dropDuplicates() on every column", () =>
    runBoth({
      name: "dedup_all_columns",
      outputMode: "append",
      query: (session, [dir]) => session.readStream.schema(Event).option("maxFilesPerTrigger", 1).json(dir!).dropDuplicates(),
      steps: [
        { add: events(["a", 1], ["a", 1], ["a", 2]), table: events(["a", 1], ["a", 2]) },
        { add: events(["a", 1], ["b", 1]), table: events(["a", 1], ["a", 2], ["b", 1]) },
      ],
    }), 60_000);
});
