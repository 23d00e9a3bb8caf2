import { afterAll, afterEach, describe, expect, it } from "vitest";
import { MalformedRecordError, OptionError, SluiceError, TaskTimeoutError } from "../errors/errors.js";
import type { InputPipeline } from "../planner/physical.js";
import { TaskPool, type TaskError } from "./pool.js";
import type { InputTask as Task } from "./protocol.js";
import type { EchoControl } from "./testing/echo-task.js";
import type { FlakyControl } from "./testing/flaky-task.js";
import type { HangControl } from "./testing/hang-task.js";
import { rowsOf, sampleBatch } from "./testing/sample-batch.js";

const echoModule = new URL("./testing/echo-task.ts", import.meta.url).href;
const flakyModule = new URL("./testing/flaky-task.ts", import.meta.url).href;
const hangModule = new URL("./testing/hang-task.ts", import.meta.url).href;

const pipeline = { sourceIndex: 0, source: { format: "memory" }, operators: [], outputFields: [] } as unknown as InputPipeline;
const context = { batchId: 0, watermarkMs: null, watermarkForLateEventsMs: null, batchTimestampMs: 0 };

function echoTask(control: EchoControl = {}): Task {
  return { kind: "input", pipeline, split: { kind: "batch", batch: sampleBatch() }, context, outputMode: "append", staticTables: { echo: control } };
}

function flakyTask(failures: number, how: FlakyControl["how"]): { task: Task; log: Int32Array } {
  const log = new Int32Array(new SharedArrayBuffer(4 * 16));
  const flaky: FlakyControl = { log, failures, how };
  return { task: { ...echoTask(), staticTables: { flaky } }, log };
}

function hangTask(hangs: number, how: HangControl["how"]): { task: Task; log: Int32Array } {
  const log = new Int32Array(new SharedArrayBuffer(4 * 16));
  const hang: HangControl = { log, hangs, how };
  return { task: { ...echoTask(), staticTables: { hang } }, log };
}

/**
 * A pool whose workers have all started (tsx and module loading take a second or more each on a
 * busy machine), for tests that time attempts. Echo tasks that wait for each other occupy every
 * worker at once; the flaky and hang modules run a task without their control like the echo task.
 */
async function warmPool(options: ConstructorParameters<typeof TaskPool>[0]): Promise<TaskPool> {
  const p = pool(options);
  const threads = new Int32Array(new SharedArrayBuffer(4 * options.workers));
  const meet = new Int32Array(new SharedArrayBuffer(4 * (options.workers + 1)));
  await p.runAll(Array.from({ length: options.workers }, (_, index) => echoTask({ threads, index, meet, meetCount: options.workers })));
  expect(Array.from(meet.subarray(1))).toEqual(Array.from({ length: options.workers }, () => 1));
  return p;
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

  it("gives each worker a 24 MiB young generation by default, and the heap resourceLimits asks for", async () => {
    const limitsOf = async (p: TaskPool) => {
      const limits = new Float64Array(new SharedArrayBuffer(16));
      await p.run(echoTask({ limits }));
      return Array.from(limits);
    };
    // [young, old] in MiB; the old generation keeps V8's default, which depends on the machine's memory.
    const [young, old] = await limitsOf(echoPool());
    expect(young).toBe(24);
    expect(old).toBeGreaterThan(0);
    expect(await limitsOf(pool({ workers: 1, taskModule: echoModule, resourceLimits: { maxYoungGenerationSizeMb: 48, maxOldGenerationSizeMb: 512 } }))).toEqual([48, 512]);
  });

  it("rejects bad options with an OptionError", () => {
    expect(() => new TaskPool({ workers: -1 })).toThrow(OptionError);
    expect(() => new TaskPool({ workers: 1.5 })).toThrow(OptionError);
    expect(() => new TaskPool({ workers: 0, maxTaskAttempts: 0 })).toThrow(OptionError);
    expect(() => new TaskPool({ workers: 0, taskTimeoutMs: -1 })).toThrow(/taskTimeout must be 0 \(no timeout\) or a positive number of milliseconds, got -1/);
    expect(() => new TaskPool({ workers: 0, taskRetryBackoffMs: Number.NaN })).toThrow(/taskRetryBackoff must be a finite number/);
    expect(() => new TaskPool({ workers: 0, taskRetryBackoffMs: 500, taskRetryMaxBackoffMs: 100 })).toThrow(
      "taskRetryMaxBackoff must be a finite number of milliseconds >= taskRetryBackoff (500), got 100",
    );
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

describe("TaskPool backoff", () => {
  it("waits 100, 200, 400 ms before attempts 2, 3 and 4 by default", async () => {
    const p = pool({ workers: 0, taskModule: flakyModule });
    const times = new Float64Array(new SharedArrayBuffer(8 * 16));
    const { task, log } = flakyTask(3, "throw");
    const result = await p.run({ ...task, staticTables: { flaky: { ...(task.staticTables["flaky"] as FlakyControl), times } } });
    expect(result.batch.numRows).toBe(5);
    expect(Atomics.load(log, 0)).toBe(4);
    const gaps = [times[2]! - times[1]!, times[3]! - times[2]!, times[4]! - times[3]!];
    // Timers never fire early; a loaded machine makes them late, so only the lower bound is tight.
    // (The upper one only rules out a wait of another order, such as a worker restart.)
    [100, 200, 400].forEach((wait, i) => {
      expect(gaps[i]).toBeGreaterThanOrEqual(wait - 1);
      expect(gaps[i]).toBeLessThan(wait + 2_000);
    });
  });

  it("caps the doubling at taskRetryMaxBackoffMs, also between attempts on worker threads", async () => {
    const p = await warmPool({ workers: 2, taskModule: flakyModule, maxTaskAttempts: 5, taskRetryBackoffMs: 60, taskRetryMaxBackoffMs: 150 });
    expect([1, 2, 3, 4].map((n) => p.backoffMs(n))).toEqual([60, 120, 150, 150]);
    const times = new Float64Array(new SharedArrayBuffer(8 * 16));
    const { task, log } = flakyTask(4, "throw");
    await p.run({ ...task, staticTables: { flaky: { ...(task.staticTables["flaky"] as FlakyControl), times } } });
    expect(Atomics.load(log, 0)).toBe(5);
    const gaps = [1, 2, 3, 4].map((n) => times[n + 1]! - times[n]!);
    [60, 120, 150, 150].forEach((wait, i) => {
      expect(gaps[i]).toBeGreaterThanOrEqual(wait - 1);
      expect(gaps[i]).toBeLessThan(wait + 2_000);
    });
  });

  it("ends a backoff wait at once when the pool is destroyed", async () => {
    const p = pool({ workers: 0, taskModule: flakyModule, taskRetryBackoffMs: 5_000 });
    const { task, log } = flakyTask(10, "throw");
    const started = performance.now();
    const failed = p.run(task).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 50));
    await p.destroy();
    const error = (await failed) as TaskError;
    expect(error.message).toBe("attempt 1 failed");
    expect(error.attempts).toBe(1);
    expect(Atomics.load(log, 0)).toBe(1);
    // Well before the 5 s wait would have ended.
    expect(performance.now() - started).toBeLessThan(3_000);
  });
});

describe("TaskPool timeouts", () => {
  it("terminates a worker stuck in a loop that never yields, and retries the task on another worker", async () => {
    const p = await warmPool({ workers: 2, taskModule: hangModule, taskTimeoutMs: 400 });
    const { task, log } = hangTask(1, "spin");
    const started = performance.now();
    const result = await p.run(task);
    const elapsed = performance.now() - started;
    expect(rowsOf(result.batch)).toEqual(rowsOf(sampleBatch()));
    const threads = attemptThreads(log);
    expect(threads).toHaveLength(2);
    expect(threads[1]).not.toBe(threads[0]);
    // 400 ms timeout + 100 ms backoff; the retry ran on the other worker, which was up already (the
    // upper bound leaves room for a machine running many times more threads than it has cores).
    expect(elapsed).toBeGreaterThanOrEqual(500 - 5);
    expect(elapsed).toBeLessThan(10_000);
  });

  it("replaces the terminated worker: the pool keeps its size and runs tasks on the new thread", async () => {
    const p = pool({ workers: 1, taskModule: hangModule, taskTimeoutMs: 300 });
    const { task, log } = hangTask(1, "wait");
    expect((await p.run(task)).batch.numRows).toBe(5);
    const [hung, retried] = attemptThreads(log);
    expect(retried).not.toBe(hung); // one worker: the retry ran on the thread that replaced it
    const again = hangTask(0, "wait");
    await p.run(again.task);
    expect(attemptThreads(again.log)).toEqual([retried]);
  });

  it("fails with a TaskTimeoutError naming the split and the option once every attempt hung, in bounded time", async () => {
    const p = await warmPool({ workers: 2, taskModule: hangModule, taskTimeoutMs: 300, maxTaskAttempts: 3 });
    const { task, log } = hangTask(99, "spin");
    const started = performance.now();
    const error = (await p.run(task).catch((e: unknown) => e)) as TaskError & TaskTimeoutError;
    const elapsed = performance.now() - started;
    expect(error).toBeInstanceOf(TaskTimeoutError);
    expect(error.message).toBe(
      "task timed out after 300 ms reading an in-memory batch of 5 row(s). If the task only needs longer, raise the Session option taskTimeout " +
        '(e.g. new Session({ taskTimeout: "15 minutes" }); 0 turns the timeout off)',
    );
    expect(error).toMatchObject({ timeoutMs: 300, split: "an in-memory batch of 5 row(s)", attempts: 3 });
    expect(Atomics.load(log, 0)).toBe(3);
    // 3 x 300 ms running and 100 + 200 ms backoff, plus one wait for a replaced worker to start
    // (attempt 3 returns to the first worker's replacement), which the timeout does not count.
    expect(elapsed).toBeGreaterThanOrEqual(3 * 300 + 300 - 5);
    // The start-up of a thread, not the timeouts, is most of the time on a busy machine.
    expect(elapsed).toBeLessThan(25_000);
  }, 40_000);

  it("counts the timeout from when the worker begins the task, not while it waits for the worker", async () => {
    // A fresh pool: the first task waits for the worker to start (a second or more), the others
    // queue behind it; each of 250 ms runs within the 400 ms it has.
    const p = pool({ workers: 1, taskModule: echoModule, taskTimeoutMs: 400 });
    const results = await p.runAll([echoTask({ sleepMs: 250 }), echoTask({ sleepMs: 250 }), echoTask({ sleepMs: 250 })]);
    expect(results.map((r) => r.batch.numRows)).toEqual([5, 5, 5]);
  });

  it("runAll fails with the hung task's timeout and leaves the pool usable", async () => {
    const p = pool({ workers: 2, taskModule: hangModule, taskTimeoutMs: 300, maxTaskAttempts: 2 });
    const hung = hangTask(99, "wait");
    const fine = () => hangTask(0, "wait").task;
    const error = (await p.runAll([fine(), hung.task, fine()]).catch((e: unknown) => e)) as TaskError;
    expect(error).toBeInstanceOf(TaskTimeoutError);
    expect(error.attempts).toBe(2);
    expect(await p.runAll([fine(), fine()])).toHaveLength(2);
  });

  it("with taskTimeoutMs 0, lets a task run as long as it takes", async () => {
    const p = pool({ workers: 1, taskModule: echoModule, taskTimeoutMs: 0 });
    expect(p.taskTimeoutMs).toBe(0);
    expect((await p.run(echoTask({ sleepMs: 400 }))).batch.numRows).toBe(5);
  });

  describe("inline (workers: 0)", () => {
    it("abandons an attempt that awaits forever and retries it", async () => {
      const p = pool({ workers: 0, taskModule: hangModule, taskTimeoutMs: 200 });
      const { task, log } = hangTask(2, "wait");
      const started = performance.now();
      expect((await p.run(task)).batch.numRows).toBe(5);
      expect(Atomics.load(log, 0)).toBe(3);
      // Two timeouts and the 100 + 200 ms waits before attempts 2 and 3.
      expect(performance.now() - started).toBeGreaterThanOrEqual(2 * 200 + 300 - 5);
    });

    it("fails with the TaskTimeoutError after the attempts when every one awaits forever", async () => {
      const p = pool({ workers: 0, taskModule: hangModule, taskTimeoutMs: 150, maxTaskAttempts: 2 });
      const { task, log } = hangTask(99, "wait");
      const error = (await p.run(task).catch((e: unknown) => e)) as TaskError;
      expect(error).toBeInstanceOf(TaskTimeoutError);
      expect(error.message).toMatch(/^task timed out after 150 ms reading an in-memory batch of 5 row\(s\)\./);
      expect(error.attempts).toBe(2);
      expect(Atomics.load(log, 0)).toBe(2);
    });
  });
});
