import { afterAll, afterEach, describe, expect, it } from "vitest";
import { MalformedRecordError, OptionError, SluiceError } from "../errors/errors.js";
import type { InputPipeline } from "../planner/physical.js";
import { TaskPool, type TaskError } from "./pool.js";
import type { Task } from "./protocol.js";
import type { EchoControl } from "./testing/echo-task.js";
import type { FlakyControl } from "./testing/flaky-task.js";
import { rowsOf, sampleBatch } from "./testing/sample-batch.js";

const echoModule = new URL("./testing/echo-task.ts", import.meta.url).href;
const flakyModule = new URL("./testing/flaky-task.ts", import.meta.url).href;

const pipeline = { sourceIndex: 0, source: { format: "memory" }, operators: [], outputFields: [] } as unknown as InputPipeline;
const context = { batchId: 0, watermarkMs: null, batchTimestampMs: 0 };

function echoTask(control: EchoControl = {}): Task {
  return { pipeline, split: { kind: "batch", batch: sampleBatch() }, context, outputMode: "append", staticTables: { echo: control } };
}

function flakyTask(failures: number, how: FlakyControl["how"]): { task: Task; log: Int32Array } {
  const log = new Int32Array(new SharedArrayBuffer(4 * 16));
  const flaky: FlakyControl = { log, failures, how };
  return { task: { ...echoTask(), staticTables: { flaky } }, log };
}

/** Thread ids of attempts 1..n, from the flaky task's shared log. */
function attemptThreads(log: Int32Array): number[] {
  return Array.from(log.subarray(1, 1 + Atomics.load(log, 0)));
}

const pools: TaskPool[] = [];
function pool(options: ConstructorParameters<typeof TaskPool>[0]): TaskPool {
  const p = new TaskPool(options);
  pools.push(p);
  return p;
}

afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.destroy()));
});

/** Worker start-up (tsx, module loading) takes most of a second: tests share these two pools. */
const shared = { echo: null as TaskPool | null, flaky: null as TaskPool | null };
const echoPool = () => (shared.echo ??= new TaskPool({ workers: 2, taskModule: echoModule }));
const flakyPool = () => (shared.flaky ??= new TaskPool({ workers: 2, taskModule: flakyModule }));
afterAll(async () => {
  await Promise.all([shared.echo?.destroy(), shared.flaky?.destroy()]);
});

describe("TaskPool results", () => {
  for (const workers of [0, 1, 2]) {
    it(`brings a batch of every column type back intact (workers: ${workers})`, async () => {
      const p = workers === 2 ? echoPool() : pool({ workers, taskModule: echoModule });
      const task = echoTask();
      const expected = rowsOf(sampleBatch());
      const [a, b, c] = await p.runAll([task, echoTask(), echoTask()]);
      for (const result of [a!, b!, c!]) {
        expect(result.batch.fields).toEqual(sampleBatch().fields);
        expect(rowsOf(result.batch)).toEqual(expected);
        expect(result.metrics).toEqual({ numInputRows: 5, numRowsDroppedByWatermark: 0, numMalformedRecords: 0, eventTime: [{ min: 1, max: 2, sum: 3, count: 2 }] });
      }
      // The driver's input batch is still readable after the task went to a worker.
      expect(task.split.kind === "batch" && rowsOf(task.split.batch)).toEqual(expected);
    });
  }

  it("runs tasks on both workers at once", async () => {
    const p = echoPool();
    const threads = new Int32Array(new SharedArrayBuffer(8));
    const meet = new Int32Array(new SharedArrayBuffer(12));
    const results = await p.runAll([echoTask({ threads, index: 0, meet }), echoTask({ threads, index: 1, meet })]);
    expect(results).toHaveLength(2);
    // Each task waited for the other to arrive: they ran at the same time, on two threads.
    expect(Array.from(meet)).toEqual([2, 1, 1]);
    expect(threads[0]).not.toBe(threads[1]);
    expect(p.size).toBe(2);
  });

  it("returns results in task order", async () => {
    const p = echoPool();
    const tasks = [120, 10, 60, 0].map((sleepMs, i) => {
      const t = echoTask({ sleepMs });
      return { ...t, context: { ...context, batchId: i } };
    });
    const results = await p.runAll(tasks);
    expect(results.map((r) => r.batch.numRows)).toEqual([5, 5, 5, 5]);
  });

  it("rejects bad options with an OptionError", () => {
    expect(() => new TaskPool({ workers: -1 })).toThrow(OptionError);
    expect(() => new TaskPool({ workers: 1.5 })).toThrow(OptionError);
    expect(() => new TaskPool({ workers: 0, maxTaskAttempts: 0 })).toThrow(OptionError);
  });
});

describe("TaskPool retries", () => {
  it("retries a task that throws, on the other worker, and succeeds", async () => {
    const p = flakyPool();
    const { task, log } = flakyTask(2, "throw");
    const result = await p.run(task);
    expect(rowsOf(result.batch)).toEqual(rowsOf(sampleBatch()));
    const threads = attemptThreads(log);
    expect(threads).toHaveLength(3);
    expect(threads[1]).not.toBe(threads[0]); // the retry went to the worker that had not failed it
  });

  it("retries a task whose worker exits, on a fresh worker", async () => {
    const p = flakyPool();
    const { task, log } = flakyTask(3, "exit");
    const result = await p.run(task);
    expect(result.batch.numRows).toBe(5);
    const threads = attemptThreads(log);
    expect(threads).toHaveLength(4);
    expect(new Set(threads).size).toBe(4); // every dead worker was replaced by a new thread
  });

  it("retries a task whose worker dies of an uncaught error", async () => {
    const p = pool({ workers: 1, taskModule: flakyModule });
    const { task, log } = flakyTask(1, "uncaught");
    const result = await p.run(task);
    expect(result.batch.numRows).toBe(5);
    expect(Atomics.load(log, 0)).toBe(2);
  });

  it("fails with the first attempt's error once attempts run out", async () => {
    const p = pool({ workers: 2, taskModule: flakyModule, maxTaskAttempts: 3 });
    const { task, log } = flakyTask(10, "throw");
    const error = (await p.run(task).catch((e: unknown) => e)) as TaskError;
    expect(error).toBeInstanceOf(RangeError);
    expect(error.message).toBe("attempt 1 failed");
    expect(error.attempts).toBe(3);
    expect(Atomics.load(log, 0)).toBe(3);
  });

  it("reports a dead worker's error after the default four attempts", async () => {
    const p = flakyPool();
    const { task, log } = flakyTask(10, "exit");
    const error = (await p.run(task).catch((e: unknown) => e)) as TaskError;
    expect(error.message).toMatch(/worker exited with code: 1/);
    expect(error.attempts).toBe(4);
    expect(Atomics.load(log, 0)).toBe(4);
  });

  it("keeps name and message of an error class the driver does not know", async () => {
    const p = pool({ workers: 1, taskModule: flakyModule, maxTaskAttempts: 2 });
    const { task } = flakyTask(10, "custom");
    const error = (await p.run(task).catch((e: unknown) => e)) as TaskError;
    expect(error).toBeInstanceOf(SluiceError);
    expect(error.name).toBe("QuirkyError");
    expect(error.message).toBe("attempt 1 failed oddly");
    expect(error.attempts).toBe(2);
  });

  for (const workers of [0, 2]) {
    it(`does not retry a deterministic user error (workers: ${workers})`, async () => {
      const p = workers === 2 ? flakyPool() : pool({ workers, taskModule: flakyModule });
      const { task, log } = flakyTask(1, "malformed");
      const error = (await p.run(task).catch((e: unknown) => e)) as TaskError & MalformedRecordError;
      expect(error).toBeInstanceOf(MalformedRecordError);
      expect(error).toMatchObject({ message: "bad record on attempt 1", file: "/data/in.jsonl", line: 7, attempts: 1 });
      expect(Atomics.load(log, 0)).toBe(1);
    });
  }

  it("retries inline too (workers: 0), keeping the original error object", async () => {
    const p = pool({ workers: 0, taskModule: flakyModule });
    const ok = flakyTask(2, "throw");
    expect((await p.run(ok.task)).batch.numRows).toBe(5);
    expect(Atomics.load(ok.log, 0)).toBe(3);
    const bad = flakyTask(10, "throw");
    const error = (await p.run(bad.task).catch((e: unknown) => e)) as TaskError;
    expect(error).toBeInstanceOf(RangeError);
    expect(error.message).toBe("attempt 1 failed");
    expect(error.attempts).toBe(4);
  });

  it("runAll fails with the failing task's error and leaves the pool usable", async () => {
    const p = pool({ workers: 2, taskModule: flakyModule, maxTaskAttempts: 2 });
    const good = () => flakyTask(0, "throw").task;
    const bad = flakyTask(10, "throw");
    const error = (await p.runAll([good(), bad.task, good(), good(), good()]).catch((e: unknown) => e)) as TaskError;
    expect(error.message).toBe("attempt 1 failed");
    expect(error.attempts).toBe(2);
    const again = await p.runAll([good(), good()]);
    expect(again).toHaveLength(2);
  });

  it("refuses tasks after destroy", async () => {
    const p = pool({ workers: 1, taskModule: echoModule });
    await p.destroy();
    await expect(p.run(echoTask())).rejects.toThrow(/destroyed/);
  });
});
