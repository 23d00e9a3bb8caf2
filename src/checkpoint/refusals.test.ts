import { cpSync } from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import type { Session } from "../api/session.js";
import { CheckpointError, StreamingQueryException } from "../errors/errors.js";
import { withSession } from "../testing/fixtures.js";
import { tempDir } from "../testing/temp-dir.js";

const FIXTURES = fileURLToPath(new URL("../../fixtures/checkpoints/", import.meta.url));
const Page = z.object({ page: z.string(), n: z.int32() });

/**
 * The error starting the fixtures' query on a copy of `fixture` gives: thrown by start() (the
 * checkpoint's metadata and lock are checked there) or, for the logs, by the run.
 */
async function refusal(session: Session, checkpoint: string): Promise<Error> {
  try {
    const query = session
      .memoryStream(Page)
      .toDF()
      .groupBy("page")
      .count()
      .writeStream.outputMode("complete")
      .format("memory")
      .queryName(`pages-${path.basename(checkpoint)}`)
      .option("checkpointLocation", checkpoint)
      .start();
    await query.awaitTermination();
  } catch (e) {
    // A refusal at start() is the error itself; one from the run comes wrapped as the query's exception.
    return e instanceof StreamingQueryException ? (e.cause as Error) : (e as Error);
  }
  throw new Error(`the query on ${checkpoint} ran; it should have refused the checkpoint`);
}

describe("checkpoints Sluice refuses, each naming the file (fixtures/checkpoints)", () => {
  const temp = tempDir("sluice-refusals-");
  afterEach(() => temp.remove());

  const cases: [fixture: string, file: string, message: RegExp][] = [
    ["another-query", "metadata", /belongs to another query \(sources \["RateStreamV2/],
    ["newer-metadata", "metadata", /was written by a newer Sluice \(version 7\); upgrade Sluice/],
    ["newer-log", "offsets/0", /was written by a newer Sluice \(log version 7, this one reads up to 1\)/],
    ["corrupt-metadata", "metadata", /is corrupt/],
    ["gap", "offsets", /has a gap: batch 1 is followed by 3/],
    ["corrupt-offsets", "offsets/0", /is corrupt/],
    ["partial-offsets", "offsets/0", /is corrupt/],
    ["wrong-shape-offsets", "offsets/0", /is corrupt: not the entry Sluice writes here .* at sources/],
    ["wrong-source-offset", "offsets/0", /the offset of source 0 \(MemoryStream\[page,n\]\), \{"topic":\{"0":1\}\}, is not one this source writes/],
    ["sources-mismatch", "offsets/0", /records 2 source offset\(s\), but this query reads 1 source\(s\)/],
    ["commit-without-offsets", "commits/1", /commits batch 1, but .*offsets\/1 does not exist/],
    ["missing-previous-offsets", "offsets/2", /is missing: batch 3 needs it/],
    ["corrupt-commit", "commits/0", /is corrupt: not the entry Sluice writes here .* at nextBatchWatermarkMs/],
    ["state-other-operator", "state/0/0/1.delta", /holds state of operator "dedupe" with value columns \[#eventTime: f64\], but this query needs state of operator "stateStoreSave"/],
    ["state-other-schema", "state/0/0/1.delta", /holds state of operator "stateStoreSave" with value columns \[.*count#sum: f64.*\], but this query needs .*\[#rows: f64, #eventTime: f64, count#count: f64\]/],
    ["state-truncated-delta", "state/0/0/2.delta", /is corrupt: it is truncated or not an Arrow IPC file/],
    ["state-missing-delta", "state/0/0/1.delta", /cannot be loaded at version 2: state file .*1\.delta is missing/],
  ];

  it.each(cases)("%s: refused, naming %s", (fixture, file, message) =>
    withSession(0, async (session) => {
      const checkpoint = temp.path(fixture);
      cpSync(path.join(FIXTURES, fixture), checkpoint, { recursive: true });
      const error = await refusal(session, checkpoint);
      expect(error).toBeInstanceOf(CheckpointError);
      expect(error.message).toContain(path.join(checkpoint, file));
      expect(error.message).toMatch(message);
    }),
  );
});
