// StreamTest with the query in a child process: every start of the query (the first, and each
// startStream() after a stopStream()) is a new Node process on the same checkpoint, so a check after a
// restart reads only what the checkpoint and its state files kept, never what a process remembered.
//
// The query cannot travel as a closure: it is a scenario (testing/scenario.ts), a module URL and an
// export name, that the child imports and builds itself. Its memory-stream inputs are rebuilt from an
// input log the parent writes: every addData / multiAddData step is one file (`<n>.v8`, v8-serialized
// `[inputIndex, rows][]`, written to a temp name and renamed), and the child appends the steps to its
// own MemoryStreams in order, one step at a time in one synchronous go. So each stream's offset (its
// count of added blocks, as Spark's MemoryStream) is the same in every process, and a batch reads all
// the parts of a multiAddData or none. The child reads the log when it starts and when a check asks it
// to process everything added, never at a moment of its own: where batches split, and so whether a
// stop lands between batches, is decided by the actions. (In this process a stop right after addData
// races the query's next trigger: the batch with the data may run before the stop or after the
// restart.) The child's foreachBatch sink sends each batch's rows back, and
// each reply carries the run's progress, over Node's IPC channel with the advanced (structured clone)
// serialization: Dates, bigints and bytes arrive as they left.
//
// A process takes a second or more to start under tsx (and a worker pool as long again), so the next
// process is started when a run starts and waits, with its session, worker pool and the scenario's
// module loaded, until it is given the checkpoint: it has run nothing before.
import { type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, renameSync, rmSync, existsSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { deserialize, serialize } from "node:v8";
import type { MemoryStream } from "../api/memory-stream.js";
import { Session } from "../api/session.js";
import type { OutputMode, TriggerInput } from "../config/options.js";
import type { StreamingQueryProgress } from "../runtime/progress.js";
import { compiledSources } from "./compiled-sources.js";
import { runIfMain, spawnPlanChild } from "./plan-child.js";
import { buildScenario, type ScenarioRef, type StreamScenario } from "./scenario.js";
import { InProcessRunner, restartBeforeEachInput, StreamTest, type QueryRun, type QueryRunner, type StreamTestOptions } from "./stream-test.js";

type Row = Record<string, unknown>;

export interface NewProcessOptions extends StreamTestOptions {
  /** The inputs of a local build of the scenario (`buildScenario`): the streams the actions name, in the scenario's order. */
  readonly inputs: readonly MemoryStream<any>[];
  /** Worker threads of the child's session. */
  readonly workers: number;
  /**
   * How stopStream() ends a run: "graceful" stops the query and lets the process exit; "kill" waits
   * until the run has processed everything added (between batches) and SIGKILLs the process, so
   * nothing a graceful stop does (releasing the lock, closing state stores) can matter.
   */
  readonly stop?: "graceful" | "kill";
}

/**
 * A StreamTest whose query runs in a child process, a new one at every start. The actions are
 * those of `testStream`, written against `options.inputs` (`execute` is not available: the query
 * object lives in the child).
 *
 * ```ts
 * const { inputs, df } = await buildScenario(session, ref); // local build: the inputs to name
 * await testStreamInNewProcess(ref, "append", { inputs, workers: 2 }).run(...restartBeforeEachInput(actions));
 * ```
 */
export function testStreamInNewProcess(query: ScenarioRef, outputMode: OutputMode, options: NewProcessOptions): StreamTest {
  return new StreamTest(new NewProcessRunner(query, outputMode, options), outputMode, options);
}

/**
 * Runs a scenario with its query in new processes: stopped before every step that adds data (gracefully,
 * or SIGKILLed between batches with `stop: "kill"`) and started again in a new process before the next
 * action. The actions name the inputs of a local build of the query, which never runs here.
 */
export async function runScenarioInNewProcesses(s: StreamScenario, options: { readonly workers: number; readonly stop?: "graceful" | "kill" }): Promise<void> {
  if (s.noRestartEachStep) throw new Error(`scenario "${s.name}" cannot be restarted after every step: ${s.noRestartEachStep}`);
  const local = new Session({ workers: 0 });
  try {
    const { inputs } = await buildScenario(local, s.query);
    await testStreamInNewProcess(s.query, s.outputMode, { inputs, ...options }).run(...restartBeforeEachInput(s.actions(inputs)));
  } finally {
    await local.stop();
  }
}

/** What a child is started with (as its JSON argument). */
interface ChildPlan {
  readonly workers: number;
  readonly query: ScenarioRef;
  readonly inputLog: string;
}

type SerializedError = { readonly name: string; readonly message: string; readonly cause: string | null };

type ToChild =
  | { readonly kind: "start"; readonly checkpoint: string; readonly outputMode: OutputMode; readonly trigger: TriggerInput | null }
  | { readonly kind: "processAllAvailable"; readonly id: number }
  | { readonly kind: "stop" };

interface ProgressReport {
  readonly recent: readonly StreamingQueryProgress[];
  readonly last: StreamingQueryProgress | null;
}

type FromChild =
  | { readonly kind: "ready" }
  | { readonly kind: "started" }
  | { readonly kind: "batch"; readonly batchId: number; readonly rows: Row[] }
  | ({ readonly kind: "processed"; readonly id: number; readonly error: SerializedError | null } & ProgressReport)
  | ({ readonly kind: "terminated"; readonly exception: SerializedError | null } & ProgressReport);

/**
 * Processes kept started ahead of need. A run that checks one step lasts far less than a start-up,
 * so one spare is often still loading when it is needed; two hide most of it (measured on the join
 * scenarios with 0 workers: 40 s with one, 25 s with two, on a busy machine).
 */
const SPARES = 2;

const stepFile = (log: string, step: number) => path.join(log, `${String(step).padStart(6, "0")}.v8`);

class NewProcessRunner implements QueryRunner {
  private readonly inputLog = mkdtempSync(path.join(os.tmpdir(), "sluice-new-process-"));
  private steps = 0;
  /** Processes started ahead of need, oldest first. */
  private readonly spares: Promise<Child>[] = [];
  private current: Child | null = null;

  constructor(
    private readonly query: ScenarioRef,
    private readonly outputMode: OutputMode,
    private readonly options: NewProcessOptions,
  ) {}

  /** A new process, from compiled sources where the scenario's module is one of them, else through tsx. */
  private async spawn(): Promise<Child> {
    const compiled = await compiledSources();
    const entry = compiled.url(import.meta.url);
    const module = compiled.url(this.query.module);
    const [url, query] = entry && module ? [entry, { ...this.query, module }] : [import.meta.url, this.query];
    return new Child(url, { workers: this.options.workers, query, inputLog: this.inputLog });
  }

  async start(checkpoint: string, onBatch: (batchId: number, rows: Row[]) => void): Promise<QueryRun> {
    const child = await (this.spares.shift() ?? this.spawn());
    this.current = child;
    await child.start({ kind: "start", checkpoint, outputMode: this.outputMode, trigger: this.options.trigger ?? null }, onBatch);
    while (this.spares.length < SPARES) {
      const spare = this.spawn();
      spare.catch(() => undefined); // a failed spawn fails the start that takes it
      this.spares.push(spare);
    }
    return new ChildRun(child, this.options.stop ?? "graceful");
  }

  async addData(parts: readonly (readonly [MemoryStream<any>, readonly Row[]])[]): Promise<void> {
    const step = parts.map(([stream, rows]) => {
      const index = this.options.inputs.indexOf(stream);
      if (index < 0) throw new Error("addData names a stream that is not one of the scenario's inputs (options.inputs)");
      return [index, rows] as const;
    });
    const file = stepFile(this.inputLog, this.steps++);
    writeFileSync(`${file}.tmp`, serialize(step));
    renameSync(`${file}.tmp`, file);
    // Not announced: the child reads new steps when it starts and when a check asks it to process
    // everything added (see the head of this file).
  }

  async close(): Promise<void> {
    await Promise.all([Promise.resolve(this.current), ...this.spares.splice(0)].map(async (c) => (await c.catch(() => null))?.kill()));
    rmSync(this.inputLog, { recursive: true, force: true });
  }
}

/** The parent's side of one child process. */
class Child {
  readonly process: ChildProcess;
  private output = "";
  private readonly listeners = new Set<(m: FromChild) => void>();
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves once the process has started up and waits for its checkpoint. */
  private readonly ready: Promise<unknown>;
  /** The query's end, as the child reports it; rejects when the process exits without reporting it (killed). */
  readonly terminated: Promise<FromChild & { kind: "terminated" }>;
  alive = true;

  constructor(entry: string, plan: ChildPlan) {
    this.process = spawnPlanChild(entry, plan, {}, ["ignore", "pipe", "pipe", "ipc"], { serialization: "advanced" });
    const keep = (d: Buffer) => {
      // The end of what it wrote is what explains a failure.
      this.output = (this.output + d.toString("utf8")).slice(-20_000);
    };
    this.process.stdout!.on("data", keep);
    this.process.stderr!.on("data", keep);
    this.process.on("message", (m: FromChild) => {
      for (const l of this.listeners) l(m);
    });
    this.exited = new Promise((resolve) =>
      this.process.on("exit", (code, signal) => {
        this.alive = false;
        resolve({ code, signal });
      }),
    );
    this.ready = this.next((m) => (m.kind === "ready" ? true : undefined));
    this.terminated = this.next((m) => (m.kind === "terminated" ? m : undefined));
    // A spare killed before it was used never had anyone waiting on it.
    this.ready.catch(() => undefined);
    this.terminated.catch(() => undefined);
  }

  get pid(): number | undefined {
    return this.process.pid;
  }

  /** What the process wrote on stdout and stderr, for error messages. */
  get log(): string {
    return this.output.trim() ? `\n--- output of process ${this.pid} ---\n${this.output.trim()}` : "";
  }

  on(listener: (m: FromChild) => void): void {
    this.listeners.add(listener);
  }

  send(m: ToChild): void {
    if (this.alive) this.process.send(m);
  }

  /** Resolves with the first message `pick` accepts; rejects when the process exits first. */
  next<T>(pick: (m: FromChild) => T | undefined): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const listener = (m: FromChild) => {
        const v = pick(m);
        if (v === undefined) return;
        this.listeners.delete(listener);
        resolve(v);
      };
      this.listeners.add(listener);
      void this.exited.then(({ code, signal }) => {
        if (!this.listeners.delete(listener)) return;
        reject(new Error(`the query's process ${this.pid} exited (${signal ?? `code ${code}`})${this.log}`));
      });
    });
  }

  /** Waits until the process is ready (it may have been started a while ago), then starts the query in it. */
  async start(m: ToChild & { kind: "start" }, onBatch: (batchId: number, rows: Row[]) => void): Promise<void> {
    await this.ready;
    this.on((x) => {
      if (x.kind === "batch") onBatch(x.batchId, x.rows);
    });
    const started = this.next((x) => (x.kind === "started" || x.kind === "terminated" ? x : undefined));
    this.send(m);
    const first = await started;
    if (first.kind === "terminated" && first.exception) throw revive(first.exception);
  }

  async kill(): Promise<void> {
    if (!this.alive) return;
    this.process.kill("SIGKILL");
    await this.exited;
  }
}

/** A run of the query in a child process, as StreamTest sees it. */
class ChildRun implements QueryRun {
  private active = true;
  private failure: Error | null = null;
  private progress: ProgressReport = { recent: [], last: null };
  private nextRequest = 0;
  private killing = false;
  private readonly terminated: Promise<void>;

  constructor(
    private readonly child: Child,
    private readonly stopHow: "graceful" | "kill",
  ) {
    const ended = child.terminated.then(
      (m) => {
        this.progress = m;
        if (m.exception) this.failure = revive(m.exception);
      },
      (e: Error) => {
        if (!this.killing) this.failure ??= e;
      },
    );
    this.terminated = ended.then(() => {
      this.active = false;
    });
  }

  get isActive(): boolean {
    return this.active;
  }

  get exception(): Error | null {
    return this.failure;
  }

  get lastProgress(): StreamingQueryProgress | null {
    return this.progress.last;
  }

  get recentProgress(): readonly StreamingQueryProgress[] {
    return this.progress.recent;
  }

  async processAllAvailable(): Promise<void> {
    if (!this.active) {
      if (this.failure) throw this.failure;
      return;
    }
    const id = this.nextRequest++;
    const reply = this.child.next((m) => (m.kind === "processed" && m.id === id ? m : undefined));
    this.child.send({ kind: "processAllAvailable", id });
    const m = await Promise.race([reply, this.terminated.then(() => null)]);
    if (m === null) {
      if (this.failure) throw this.failure;
      return;
    }
    this.progress = m;
    if (m.error) throw revive(m.error);
  }

  async awaitTermination(timeoutMs?: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>((resolve) => {
      if (timeoutMs !== undefined) timer = setTimeout(() => resolve(false), timeoutMs);
    });
    try {
      const ended = await Promise.race([this.terminated.then(() => true as const), timeout]);
      if (ended && this.failure) throw this.failure;
      return ended;
    } finally {
      clearTimeout(timer);
    }
  }

  async stop(): Promise<void> {
    if (!this.child.alive) return;
    if (this.stopHow === "kill" && this.active) {
      // Between batches: everything added so far has been processed and committed.
      await this.processAllAvailable().catch(() => undefined);
      this.killing = true;
      await this.child.kill();
    } else {
      this.child.send({ kind: "stop" });
      await this.child.exited;
    }
    await this.terminated;
  }
}

function serializeError(e: unknown): SerializedError {
  const err = e instanceof Error ? e : new Error(String(e));
  const cause = err.cause instanceof Error ? err.cause.message : err.cause === undefined ? null : String(err.cause);
  return { name: err.name, message: err.message, cause };
}

/** An error from the child, with its name, message and the message of its cause (what expectFailure reads). */
function revive(e: SerializedError): Error {
  const err = new Error(e.message, e.cause === null ? undefined : { cause: new Error(e.cause) });
  err.name = e.name;
  return err;
}

// ---- the child ----

async function main(plan: ChildPlan): Promise<void> {
  const send = (m: FromChild) => new Promise<void>((resolve) => process.send!(m, undefined, {}, () => resolve()));
  const session = new Session({ workers: plan.workers });
  // Start the worker threads and load the scenario's module while waiting to be given the checkpoint.
  void session.pool;
  await import(plan.query.module);
  const messages: ToChild[] = [];
  let wake: (() => void) | null = null;
  process.on("message", (m: ToChild) => {
    messages.push(m);
    wake?.();
  });
  const receive = async (): Promise<ToChild> => {
    while (messages.length === 0) await new Promise<void>((r) => (wake = r));
    return messages.shift()!;
  };
  // The parent's exit or kill ends the channel: this process must not outlive it.
  process.on("disconnect", () => process.exit(1));
  await send({ kind: "ready" });

  let start: ToChild;
  while ((start = await receive()).kind !== "start") {
    // Nothing runs yet: data arriving now is read at start.
  }
  const { inputs, df } = await buildScenario(session, plan.query);
  const runner = new InProcessRunner(df, start.outputMode, start.trigger ?? undefined);
  let applied = 0;
  /** Appends the input steps the parent has logged since the last call, each in one synchronous go. */
  const sync = () => {
    for (let file = stepFile(plan.inputLog, applied); existsSync(file); file = stepFile(plan.inputLog, ++applied)) {
      const step = deserialize(readFileSync(file)) as [number, Row[]][];
      for (const [i, rows] of step) inputs[i]!.addData(...(rows as never[]));
    }
  };
  sync();
  const report = (): ProgressReport => ({ recent: query.recentProgress, last: query.lastProgress });
  const query = await runner.start(start.checkpoint, (batchId, rows) => {
    process.send!({ kind: "batch", batchId, rows } satisfies FromChild);
  });
  const ended = query.awaitTermination().then(
    () => null,
    (e: unknown) => serializeError(e),
  );
  void ended.then(async (exception) => {
    await send({ kind: "terminated", exception, ...report() });
    await session.stop();
    process.exit(0);
  });
  await send({ kind: "started" });
  for (;;) {
    const m = await receive();
    switch (m.kind) {
      case "processAllAvailable": {
        sync();
        const error = await query.processAllAvailable().then(
          () => null,
          (e: unknown) => serializeError(e),
        );
        await send({ kind: "processed", id: m.id, error, ...report() });
        break;
      }
      case "stop":
        await query.stop();
        break;
      case "start":
        throw new Error("the query has started already");
    }
  }
}

runIfMain(import.meta.url, main);
