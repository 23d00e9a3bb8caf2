import { describe, expect, it } from "vitest";
import { z } from "zod";
import { withSession } from "../testing/fixtures.js";
import { tempDirs } from "../testing/temp-dirs.js";

// Spark's Trigger.AvailableNow reads what its sources hold when the run starts (prepareForTriggerAvailableNow),
// in as many batches as the rate limits make, and then stops: data that arrives meanwhile waits for the next run.
// Each test adds data from a listener after every batch, which would keep a run that follows the live end going.

const Value = z.object({ value: z.int32() });

const tempFolder = tempDirs();

describe("trigger({ availableNow: true })", () => {
  it("reads a memory stream's rows that were there when it started, however many arrive during the run", () =>
    withSession(0, async (session) => {
      const input = session.memoryStream(Value);
      input.addData({ value: 1 }, { value: 2 });
      input.addData({ value: 3 });
      let added = 0;
      session.streams.addListener({ onQueryProgress: () => void input.addData({ value: 100 + added++ }) });
      const q = input.toDF().writeStream.format("memory").queryName("bounded_memory").trigger({ availableNow: true }).start();
      expect(await q.awaitTermination(10_000)).toBe(true);
      expect(q.recentProgress.map((p) => p.numInputRows)).toEqual([3]);
      expect(await session.table("bounded_memory").orderBy("value").collect()).toEqual([{ value: 1 }, { value: 2 }, { value: 3 }]);
      expect(added).toBe(1);

      // The next run reads what arrived meanwhile (from the same checkpoint), and again no more.
      const checkpoint = tempFolder("sluice-ckpt-");
      const run = () =>
        input
          .toDF()
          .writeStream.format("memory")
          .queryName("bounded_again")
          .option("checkpointLocation", checkpoint.path("ckpt"))
          .trigger({ availableNow: true })
          .start();
      const first = run();
      await first.awaitTermination(10_000);
      expect(first.recentProgress.map((p) => p.numInputRows)).toEqual([4]);
      const second = run();
      await second.awaitTermination(10_000);
      expect(second.recentProgress.map((p) => p.numInputRows)).toEqual([1]);
    }));

  it("admits the files there when it started, maxFilesPerTrigger at a time, and none written during the run", () =>
    withSession(1, async (session) => {
      const d = tempFolder();
      for (let f = 0; f < 3; f++) d.write(`part-${f}.jsonl`, [{ value: f * 10 }, { value: f * 10 + 1 }]);
      let written = 0;
      session.streams.addListener({ onQueryProgress: () => d.write(`late-${written++}.jsonl`, [{ value: -1 }]) });
      const q = session.readStream
        .schema(Value)
        .option("maxFilesPerTrigger", 1)
        .json(d.dir)
        .writeStream.format("memory")
        .queryName("bounded_files")
        .trigger({ availableNow: true })
        .start();
      expect(await q.awaitTermination(10_000)).toBe(true);
      expect(q.recentProgress.map((p) => p.numInputRows)).toEqual([2, 2, 2]);
      expect((await session.table("bounded_files").orderBy("value").collect()).map((r) => r.value)).toEqual([0, 1, 10, 11, 20, 21]);
      expect(written).toBe(3);
    }));
});
