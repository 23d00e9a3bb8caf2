import { readFileSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import type { DataFrame } from "../api/data-frame.js";
import { col, count, max } from "../api/functions.js";
import type { Session } from "../api/session.js";
import type { OutputMode } from "../config/options.js";
import { CheckpointError, StateSchemaError } from "../errors/errors.js";
import { withSession } from "../testing/fixtures.js";
import { addData, checkLastBatch, testStream } from "../testing/stream-test.js";
import { tempDir } from "../testing/temp-dir.js";

/**
 * Which changed queries may restart on a checkpoint (Spark's rules; runtime/checkpoint-continuation.ts):
 * the same sources and stateful operators, each operator's state schema compatible. The
 * deduplication suite holds Spark's own tests of it (SPARK-39650).
 */

const StrInt = z.object({ _1: z.string(), _2: z.int() });
const NullableStrInt = z.object({ _1: z.string().nullable(), _2: z.int() });

const temp = tempDir("sluice-continuation-");
afterEach(() => temp.remove());
let checkpoints = 0;
const newCheckpoint = () => temp.path(String(checkpoints++));

/** Counts per `_1`, the count named `n`. */
const countsByFirst = (session: Session) => {
  const input = session.memoryStream(StrInt);
  return { input, df: input.toDF().groupBy("_1").agg(count().alias("n")) };
};

/** Runs `df` on `checkpoint` with `input` given one row ("a", 1): its count comes out. */
async function firstRun(checkpoint: string, built: ReturnType<typeof countsByFirst>): Promise<void> {
  await testStream(built.df, "update", { checkpointLocation: checkpoint }).run(addData(built.input, { _1: "a", _2: 1 }), checkLastBatch({ _1: "a", n: 1 }));
}

/** The error starting `df` on `checkpoint` gives (the refusal comes from start(), as the cause of StreamTest's report). */
async function refusal(df: DataFrame<any>, checkpoint: string, mode: OutputMode = "update"): Promise<Error> {
  try {
    await testStream(df, mode, { checkpointLocation: checkpoint }).run();
  } catch (e) {
    return (e as Error).cause as Error;
  }
  throw new Error("the query started; it should have refused the checkpoint");
}

describe("restarting a changed query on its checkpoint", () => {
  it("keeps the state when key and aggregate are renamed (columns are compared by position and type)", () =>
    withSession(0, async (session) => {
      const checkpoint = newCheckpoint();
      await firstRun(checkpoint, countsByFirst(session));
      const input = session.memoryStream(StrInt);
      // The input block the first run read, then a new one.
      input.addData({ _1: "a", _2: 1 });
      const renamed = input
        .toDF()
        .select(col("_1").alias("page"))
        .groupBy("page")
        .agg(count().alias("views"));
      await testStream(renamed, "update", { checkpointLocation: checkpoint }).run(addData(input, { _1: "a", _2: 2 }), checkLastBatch({ page: "a", views: 2 }));
    }));

  it("refuses a key of another type, naming the operator and the column", () =>
    withSession(0, async (session) => {
      const checkpoint = newCheckpoint();
      await firstRun(checkpoint, countsByFirst(session));
      const byNumber = session.memoryStream(StrInt).toDF().groupBy("_2").agg(count().alias("n"));
      const error = await refusal(byNumber, checkpoint);
      expect(error).toBeInstanceOf(StateSchemaError);
      expect(error.message).toBe(
        `checkpoint file ${path.join(checkpoint, "metadata")} records state this query cannot read: ` +
          "stateful operator 0 (stateStoreSave): its key columns were [_1: string] and are [_2: int64]: column 1 (_2) is int64, was string. " +
          "As in Spark, a restarted query keeps a stateful operator's state only when its key and value columns keep their number, order and types " +
          "(a column may be renamed, and may become non-nullable, not nullable). Change the query back, or start it on a new checkpointLocation.",
      );
    }));

  it("refuses a key column that becomes nullable", () =>
    withSession(0, async (session) => {
      const checkpoint = newCheckpoint();
      await firstRun(checkpoint, countsByFirst(session));
      const nullable = session.memoryStream(NullableStrInt).toDF().groupBy("_1").agg(count().alias("n"));
      const error = await refusal(nullable, checkpoint);
      expect(error).toBeInstanceOf(StateSchemaError);
      expect(error.message).toContain("stateful operator 0 (stateStoreSave): its key columns were [_1: string] and are [_1: string (nullable)]: column 1 (_1) is nullable, was not.");
    }));

  it("refuses an aggregate whose accumulators differ (count, then max)", () =>
    withSession(0, async (session) => {
      const checkpoint = newCheckpoint();
      await firstRun(checkpoint, countsByFirst(session));
      const maxima = session.memoryStream(StrInt).toDF().groupBy("_1").agg(max(col("_2")).alias("n"));
      const error = await refusal(maxima, checkpoint);
      expect(error).toBeInstanceOf(StateSchemaError);
      expect(error.message).toContain(
        "stateful operator 0 (stateStoreSave): its value columns were [n#count: float64] and are [n#value: int64 (nullable)]: column 1 (n#value) is int64, was float64.",
      );
    }));

  it("refuses a stateful operator added, as another query's checkpoint", () =>
    withSession(0, async (session) => {
      const checkpoint = newCheckpoint();
      await firstRun(checkpoint, countsByFirst(session));
      const deduplicatedFirst = session.memoryStream(StrInt).toDF().dropDuplicates("_1", "_2").groupBy("_1").agg(count().alias("n"));
      const error = await refusal(deduplicatedFirst, checkpoint);
      expect(error).toBeInstanceOf(CheckpointError);
      expect(error).not.toBeInstanceOf(StateSchemaError);
      expect(error.message).toContain(
        'belongs to another query (sources ["MemoryStream[_1,_2]"], stateful operators ["stateStoreSave"]); this query reads ["MemoryStream[_1,_2]"] with stateful operators ["dedupe","stateStoreSave"]',
      );
    }));

  it("refuses a join whose side gained a column (a join keeps each side's rows)", () =>
    withSession(0, async (session) => {
      const checkpoint = newCheckpoint();
      const join = (right: DataFrame<any>) => session.memoryStream(StrInt).toDF().select(col("_1").alias("key"), col("_2").alias("l")).join(right, "key");
      const Right = z.object({ key: z.string(), r: z.int() });
      await testStream(join(session.memoryStream(Right).toDF()), "append", { checkpointLocation: checkpoint }).run();
      const wider = session.memoryStream(Right.extend({ note: z.string() })).toDF();
      const error = await refusal(join(wider), checkpoint, "append");
      expect(error).toBeInstanceOf(StateSchemaError);
      expect(error.message).toContain(
        "stateful operator 0 (symmetricHashJoin): its right value columns were [key: string, r: int64] and are [key: string, r: int64, note: string]: 3 column(s) where the state has 2.",
      );
    }));

  it("holds a checkpoint that recorded no state schemas (written by an earlier Sluice) to its operators' names", () =>
    withSession(0, async (session) => {
      const checkpoint = newCheckpoint();
      await firstRun(checkpoint, countsByFirst(session));
      const file = path.join(checkpoint, "metadata");
      const { stateSchemas: _, ...older } = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
      writeFileSync(file, `${JSON.stringify(older)}\n`);
      // Renaming the key renames the operator ("aggregate(page;count)"): refused, where a recorded schema would allow it.
      const renamed = session.memoryStream(StrInt).toDF().select(col("_1").alias("page")).groupBy("page").agg(count().alias("n"));
      const error = await refusal(renamed, checkpoint);
      expect(error).toBeInstanceOf(CheckpointError);
      expect(error.message).toContain('stateful operators ["aggregate(_1;count)"]); this query reads ["MemoryStream[_1,_2]"] with stateful operators ["aggregate(page;count)"]');
    }));
});
