import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import * as os from "node:os";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import type { Session } from "../api/session.js";
import { CheckpointError, ConcurrentModificationError } from "../errors/errors.js";
import { pageViews, startChildQuery } from "../testing/child-query.js";
import { withSession } from "../testing/fixtures.js";
import { tempDir } from "../testing/temp-dir.js";

const Click = z.object({ page: z.string() });

/** A fresh folder per test: `input` receives JSON-lines files of clicks, `checkpoint` is the query's. */
function folders() {
  let temp = tempDir("sluice-checkpoint-");
  beforeEach(() => {
    temp = tempDir("sluice-checkpoint-");
    mkdirSync(temp.path("in"));
  });
  afterEach(() => temp.remove());
  return {
    get input() {
      return temp.path("in");
    },
    get checkpoint() {
      return temp.path("ckpt");
    },
    /** Adds a file of clicks on `pages` to the input folder. */
    clicks(name: string, pages: readonly string[]) {
      writeFileSync(path.join(temp.path("in"), name), pages.map((page) => JSON.stringify({ page })).join("\n") + "\n");
    },
  };
}

async function pages(session: Session, name = "pages"): Promise<unknown[]> {
  return (await session.table(name).orderBy("page").collect()).map((r) => r.page);
}

describe("one running query per checkpoint", () => {
  const f = folders();

  it("refuses a second query on a checkpoint in use in this process at start(), naming the folder and the query holding it", () =>
    withSession(0, async (session) => {
      const { input, checkpoint } = f;
      f.clicks("a.jsonl", ["/a"]);
      const first = pageViews(session, input, checkpoint).start();
      await first.processAllAvailable();
      const second = () => pageViews(session, input, checkpoint).queryName("again").start();
      expect(second).toThrow(CheckpointError);
      expect(second).toThrow(`checkpoint ${checkpoint} is in use by query ${first.id} (run ${first.runId}, started `);
      expect(second).toThrow(/in this process\); a checkpoint serves one running query/);
      // The refused start changed nothing: the first query still runs, and after it stops the checkpoint is free.
      expect(first.isActive).toBe(true);
      await first.stop();
      const third = pageViews(session, input, checkpoint).start();
      await third.processAllAvailable();
      expect(third.id).toBe(first.id);
      await third.stop();
    }));

  it("refuses the same query started twice", () =>
    withSession(0, async (session) => {
      f.clicks("a.jsonl", ["/a"]);
      const writer = session.readStream
        .schema(Click)
        .json(f.input)
        .writeStream.foreachBatch(() => undefined)
        .option("checkpointLocation", f.checkpoint);
      const q = writer.start();
      expect(() => writer.start()).toThrow(`is in use by query ${q.id}`);
      await q.stop();
    }));

  it("refuses a checkpoint another process runs a query on, naming that process", () =>
    withSession(0, async (session) => {
      const { input, checkpoint } = f;
      f.clicks("a.jsonl", ["/a"]);
      const child = startChildQuery({ kind: "pageViews", input, checkpoint });
      try {
        const [, queryId] = (await child.line("STARTED")).split(" ");
        await child.line("BATCH 0");
        expect(() => pageViews(session, input, checkpoint).start()).toThrow(
          new RegExp(`checkpoint ${checkpoint} is in use by query ${queryId} .* in process ${child.process.pid} on ${os.hostname()}\\)`),
        );
      } finally {
        child.process.kill("SIGKILL");
        await child.exited;
      }
    }));

  it("takes over the lock a killed process left, and goes on from that process's last commit", () =>
    withSession(0, async (session) => {
      const { input, checkpoint } = f;
      f.clicks("a.jsonl", ["/a", "/b"]);
      const child = startChildQuery({ kind: "pageViews", input, checkpoint });
      await child.line("BATCH 0");
      child.process.kill("SIGKILL");
      expect((await child.exited).signal).toBe("SIGKILL");
      // The dead process's lease is still there, not released.
      expect(readdirSync(`${checkpoint}/.lock`)).toEqual(["0"]);
      f.clicks("b.jsonl", ["/a"]);
      const q = pageViews(session, input, checkpoint).start();
      await q.processAllAvailable();
      expect(q.recentProgress.map((p) => p.batchId)).toEqual([1]);
      // The new run's memory table holds what it processed: the batch after the dead process's last commit.
      expect(await pages(session)).toEqual(["/a"]);
      expect(readdirSync(`${checkpoint}/.lock`)).toEqual(["1"]);
      await q.stop();
      expect(readdirSync(`${checkpoint}/.lock`).sort()).toEqual(["1", "1.released"]);
    }));

  it("a run whose checkpoint another run took over stops before writing", () =>
    withSession(0, async (session) => {
      const { input, checkpoint } = f;
      f.clicks("a.jsonl", ["/a"]);
      const q = pageViews(session, input, checkpoint).start();
      await q.processAllAvailable();
      // Another host took the lease over (as it would after this host stopped renewing it).
      const intruder = { queryId: q.id, runId: "other-run", pid: 1, host: "elsewhere", startedAt: new Date().toISOString() };
      writeFileSync(`${checkpoint}/.lock/1`, JSON.stringify(intruder));
      f.clicks("b.jsonl", ["/b"]);
      await expect(q.awaitTermination()).rejects.toThrow(/Multiple streaming queries/);
      expect(q.exception!.cause).toBeInstanceOf(ConcurrentModificationError);
      expect(q.exception!.message).toContain(`Multiple streaming queries are concurrently using ${checkpoint}: query ${q.id} (run other-run, process 1 on elsewhere) took its lock over`);
      expect(readdirSync(`${checkpoint}/offsets`)).toEqual(["0"]);
    }));

  it("a log entry that another run wrote stops the query with a concurrent-use error naming the file", () =>
    withSession(0, async (session) => {
      const { input, checkpoint } = f;
      f.clicks("a.jsonl", ["/a"]);
      const q = pageViews(session, input, checkpoint).start();
      await q.processAllAvailable();
      writeFileSync(`${checkpoint}/offsets/1`, 'v1\n{"sources":[1],"batchWatermarkMs":null,"batchTimestampMs":0,"inputWatermarksMs":[]}\n');
      f.clicks("b.jsonl", ["/b"]);
      await expect(q.awaitTermination()).rejects.toThrow(/Multiple streaming queries/);
      expect(q.exception!.cause).toBeInstanceOf(ConcurrentModificationError);
      expect((q.exception!.cause as Error).message).toMatch(
        new RegExp(`^Multiple streaming queries are concurrently using ${checkpoint}: ${checkpoint}/offsets/1 was written by another run while this one \\(query ${q.id}, run ${q.runId}\\) ran batch 1`),
      );
      // Batch 1's tasks read b.jsonl while its entry was being written: none of it reached the sink or the commit log.
      expect(await pages(session)).toEqual(["/a"]);
      expect(readdirSync(`${checkpoint}/commits`)).toEqual(["0"]);
    }));
});

describe("the logs after a crash, as Spark reads them", () => {
  const f = folders();

  it("with commits/ deleted, re-runs only the last planned batch, as logged, and skips nothing", () =>
    withSession(0, async (session) => {
      const { input, checkpoint } = f;
      for (const [i, pages] of [["/a"], ["/a", "/b"], ["/c"]].entries()) f.clicks(`${i}.jsonl`, pages);
      const start = (maxFiles: number) =>
        session.readStream
          .schema(Click)
          .option("maxFilesPerTrigger", maxFiles)
          .json(input)
          .groupBy("page")
          .count()
          .writeStream.outputMode("complete")
          .format("memory")
          .queryName("logs")
          .option("checkpointLocation", checkpoint)
          .start();
      const first = start(1);
      await first.processAllAvailable();
      await first.stop();
      expect(first.recentProgress.map((p) => p.batchId)).toEqual([0, 1, 2]);
      rmSync(`${checkpoint}/commits`, { recursive: true });
      // offsets/2 proves batches 0 and 1 finished; batch 2 re-runs with its logged offsets.
      const second = start(3);
      await second.processAllAvailable();
      await second.stop();
      expect(second.recentProgress.map((p) => [p.batchId, p.numInputRows])).toEqual([[2, 1]]);
      expect(await session.table("logs").orderBy("page").collect()).toEqual([
        { page: "/a", count: 2 },
        { page: "/b", count: 1 },
        { page: "/c", count: 1 },
      ]);
    }));

  it("keeps the logs of the last minBatchesToRetain batches and deletes older ones", async () => {
    const { Session } = await import("../api/session.js");
    const session = new Session({ workers: 0, minBatchesToRetain: 3 });
    try {
      const { checkpoint } = f;
      const clicks = session.memoryStream(Click);
      const q = clicks.toDF().writeStream.format("memory").queryName("kept").option("checkpointLocation", checkpoint).start();
      for (let i = 0; i < 7; i++) {
        clicks.addData({ page: `/${i}` });
        await q.processAllAvailable();
      }
      await q.stop();
      const ids = (dir: string) => readdirSync(`${checkpoint}/${dir}`).filter((n) => /^\d+$/.test(n)).map(Number).sort((a, b) => a - b);
      expect(ids("offsets")).toEqual([4, 5, 6]);
      expect(ids("commits")).toEqual([4, 5, 6]);
    } finally {
      await session.stop();
    }
  });
});

describe("sinks whose output outlives the process need a checkpointLocation", () => {
  it.each([
    ["foreachBatch", (w: ReturnType<typeof writer>) => w.foreachBatch(() => undefined)],
    ["kafka", (w: ReturnType<typeof writer>) => w.format("kafka").option("kafka.bootstrap.servers", "127.0.0.1:1").option("topic", "t")],
  ])("%s without one is refused at start(), as in Spark", async (_name, sink) => {
    const { Session } = await import("../api/session.js");
    const session = new Session({ workers: 0 });
    try {
      const w = sink(writer(session));
      expect(() => w.start()).toThrow(/^checkpointLocation must be specified through option\("checkpointLocation", \.\.\.\) or new Session\(\{ checkpointLocation \}\)/);
    } finally {
      await session.stop();
    }
  });
});

function writer(session: Session) {
  return session.memoryStream(z.object({ value: z.string() })).toDF().writeStream;
}
