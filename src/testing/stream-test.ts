import * as os from "node:os";
import * as path from "node:path";
import { randomUUID } from "node:crypto";
import { isDeepStrictEqual } from "node:util";
import type { DataFrame } from "../api/data-frame.js";
import type { MemoryStream } from "../api/memory-stream.js";
import type { Session } from "../api/session.js";
import { batchToRows } from "../batch/rows.js";
import { type OutputMode, type TriggerInput, toTrigger, triggerSchema } from "../config/options.js";
import type { StreamingQueryProgress } from "../runtime/progress.js";
import type { StreamingQuery } from "../runtime/streaming-query.js";
import type { RowOf, SchemaShape } from "../types/dtype.js";
import type { ManualClock } from "./manual-clock.js";

export { ManualClock } from "./manual-clock.js";

/**
 * StreamTest: a test is a list of actions run against one streaming query, as in Spark's own
 * test suite. Checks wait for everything added so far to be processed, compare rows exactly
 * (order-insensitive unless the query sorts), and on failure print every action with the failing
 * one marked, the rows the sink holds and the last progress.
 *
 * ```ts
 * await testStream(counts, "update").run(
 *   addData(words, { word: "cat", time: t("12:07") }),
 *   checkLastBatch({ word: "cat", count: 1 }),
 *   stopStream(), startStream(),
 *   checkAnswer({ word: "cat", count: 1 }),
 * );
 * ```
 */

type Row = Record<string, unknown>;

export type StreamAction =
  | { readonly kind: "addData"; readonly stream: MemoryStream<any>; readonly rows: readonly Row[] }
  | { readonly kind: "multiAddData"; readonly parts: readonly (readonly [MemoryStream<any>, readonly Row[]])[] }
  | { readonly kind: "assertNumStateRows"; readonly total: readonly number[]; readonly updated: readonly number[]; readonly dropped: readonly number[] | null }
  | { readonly kind: "checkLastBatch"; readonly rows: readonly Row[]; readonly ordered: boolean }
  | { readonly kind: "checkAnswer"; readonly rows: readonly Row[]; readonly ordered: boolean }
  | { readonly kind: "checkNewAnswer"; readonly rows: readonly Row[] }
  | { readonly kind: "assertWatermark"; readonly ms: number | null }
  | { readonly kind: "assertProgress"; readonly check: (p: StreamingQueryProgress) => void }
  | { readonly kind: "stopStream" }
  | { readonly kind: "startStream" }
  | { readonly kind: "expectFailure"; readonly pattern: RegExp | string }
  | { readonly kind: "execute"; readonly name: string; readonly fn: (q: StreamingQuery) => unknown }
  | { readonly kind: "advanceManualClock"; readonly ms: number };

export const addData = <S extends SchemaShape>(stream: MemoryStream<S>, ...rows: RowOf<S>[]): StreamAction => ({ kind: "addData", stream, rows });
/** Spark's MultiAddData: rows for several streams, all read by the same batch. */
export const multiAddData = (...parts: (readonly [MemoryStream<any>, readonly Row[]])[]): StreamAction => ({ kind: "multiAddData", parts });
/**
 * Spark's assertNumStateRows: the state rows after the last batch (`total`) and the rows the
 * batches since the previous such check inserted or changed (`updated`) and dropped as late
 * (`dropped`), per stateful operator in Spark's order (the one nearest the sink first); a number
 * for a query with one stateful operator.
 */
export const assertNumStateRows = (total: number | readonly number[], updated: number | readonly number[], dropped?: number | readonly number[]): StreamAction => ({
  kind: "assertNumStateRows",
  total: [total].flat(),
  updated: [updated].flat(),
  dropped: dropped === undefined ? null : [dropped].flat(),
});
/** The rows of the most recent batch equal `rows` (in any order). */
export const checkLastBatch = (...rows: Row[]): StreamAction => ({ kind: "checkLastBatch", rows, ordered: false });
/** The rows of the most recent batch equal `rows`, in this order. */
export const checkLastBatchInOrder = (...rows: Row[]): StreamAction => ({ kind: "checkLastBatch", rows, ordered: true });
/** Everything the sink holds equals `rows`: the whole result in complete mode, all emitted rows otherwise. */
export const checkAnswer = (...rows: Row[]): StreamAction => ({ kind: "checkAnswer", rows, ordered: false });
export const checkAnswerInOrder = (...rows: Row[]): StreamAction => ({ kind: "checkAnswer", rows, ordered: true });
/** The rows emitted since the previous check equal `rows`. */
export const checkNewAnswer = (...rows: Row[]): StreamAction => ({ kind: "checkNewAnswer", rows });
/** The watermark in force after the last batch (epoch ms, a Date, or null for none yet). */
export const assertWatermark = (at: number | Date | null): StreamAction => ({ kind: "assertWatermark", ms: at instanceof Date ? at.getTime() : at });
export const assertProgress = (check: (p: StreamingQueryProgress) => void): StreamAction => ({ kind: "assertProgress", check });
export const stopStream = (): StreamAction => ({ kind: "stopStream" });
export const startStream = (): StreamAction => ({ kind: "startStream" });
/** The query fails with an error whose message matches. */
export const expectFailure = (pattern: RegExp | string): StreamAction => ({ kind: "expectFailure", pattern });
export const execute = (name: string, fn: (q: StreamingQuery) => unknown): StreamAction => ({ kind: "execute", name, fn });
/**
 * Spark's AdvanceManualClock: moves the test's manual clock (`testStream(df, mode, { clock })`) on
 * by `ms`, then waits until the query has processed what that made due (a trigger, timers).
 */
export const advanceManualClock = (ms: number): StreamAction => ({ kind: "advanceManualClock", ms });

export interface StreamTestOptions {
  readonly checkpointLocation?: string;
  readonly trigger?: TriggerInput;
  /**
   * A manual clock the query triggers on (Spark's StreamManualClock): batches run when
   * `advanceManualClock` moves it past the trigger interval, and their timestamps read it.
   */
  readonly clock?: ManualClock;
}

/**
 * Where the query under test runs. StreamTest performs the actions and checks the answers; the
 * runner starts runs of the query, each on the same checkpoint, and feeds its inputs. `testStream`
 * runs the query in this process; testing/stream-test-process.ts runs each start in a new process.
 */
export interface QueryRunner {
  /** Starts a run on `checkpoint`; its sink hands every batch's rows to `onBatch` (a re-run batch again). */
  start(checkpoint: string, onBatch: (batchId: number, rows: Row[]) => void): Promise<QueryRun>;
  /** Appends rows to the inputs in one step: the next batch that reads any of them reads them all. */
  addData(parts: readonly (readonly [MemoryStream<any>, readonly Row[]])[]): Promise<void>;
  /** Called once when the test ends, passed or failed, after its last run stopped. */
  close(): Promise<void>;
}

/** One run of the query: the members of StreamingQuery that StreamTest uses (`execute` needs a StreamingQuery itself). */
export interface QueryRun extends Pick<StreamingQuery, "isActive" | "lastProgress" | "recentProgress" | "processAllAvailable" | "awaitTermination" | "stop"> {
  readonly exception: Error | null;
}

/** Runs the query in this process: a restart re-reads the checkpoint, the inputs keep their data. */
export class InProcessRunner implements QueryRunner {
  constructor(
    private readonly df: DataFrame<any>,
    private readonly outputMode: OutputMode,
    private readonly trigger: TriggerInput | undefined,
    private readonly clock?: ManualClock,
  ) {}

  async start(checkpoint: string, onBatch: (batchId: number, rows: Row[]) => void): Promise<QueryRun> {
    const session = this.df.session as Session;
    const query = session.startStream(this.df.plan, {
      outputMode: this.outputMode,
      trigger: toTrigger(this.trigger ? triggerSchema.parse(this.trigger) : undefined),
      queryName: null,
      checkpointLocation: checkpoint,
      sink: { kind: "foreachBatch", fn: (batch, batchId) => onBatch(batchId, batchToRows(batch)) },
      ...(this.clock ? { clock: this.clock } : {}),
    });
    return query;
  }

  async addData(parts: readonly (readonly [MemoryStream<any>, readonly Row[]])[]): Promise<void> {
    // One synchronous step: the query's next trigger sees all of them.
    for (const [stream, rows] of parts) stream.addData(...(rows as never[]));
  }

  async close(): Promise<void> {}
}

export function testStream<S extends SchemaShape>(df: DataFrame<S>, outputMode: OutputMode, options: StreamTestOptions = {}): StreamTest {
  return new StreamTest(new InProcessRunner(df, outputMode, options.trigger, options.clock), outputMode, options);
}

/**
 * The actions with a stop and a start right before every step that adds data: each step's data is
 * read by a run that started from the checkpoint (in new-process mode, by a new process). Before,
 * not after: a stop right after adding data races the query's next trigger, so which run reads the
 * data (and so what each run's progress shows) would be left to chance; stopped between a check and
 * the next step, a run has nothing left to do.
 */
export function restartBeforeEachInput(actions: readonly StreamAction[]): StreamAction[] {
  return actions.flatMap((a) => (a.kind === "addData" || a.kind === "multiAddData" ? [stopStream(), startStream(), a] : [a]));
}

export class StreamTest {
  private readonly batches = new Map<number, Row[]>();
  private query: QueryRun | null = null;
  private seenRows = 0;
  /** Progress of every batch so far, across restarts, by batch id. */
  private readonly progress = new Map<number, StreamingQueryProgress>();
  private stateRowsCheckedUpTo = -1;
  private readonly checkpoint: string;

  constructor(
    private readonly runner: QueryRunner,
    private readonly outputMode: OutputMode,
    options: Pick<StreamTestOptions, "checkpointLocation" | "clock">,
  ) {
    this.checkpoint = options.checkpointLocation ?? path.join(os.tmpdir(), "sluice-stream-test", randomUUID());
    this.clock = options.clock ?? null;
  }

  private readonly clock: ManualClock | null;

  private async start(): Promise<void> {
    this.query = await this.runner.start(this.checkpoint, (batchId, rows) => {
      this.batches.set(batchId, rows);
    });
    // On a manual clock the first trigger runs at once; the next waits for the clock. Let the
    // first one finish, so rows added next wait for advanceManualClock as in Spark's tests.
    if (this.clock) await this.settle();
  }

  /** Rows the sink holds: the last batch in complete mode, every batch's rows otherwise. */
  private allRows(): Row[] {
    const ids = [...this.batches.keys()].sort((a, b) => a - b);
    if (this.outputMode === "complete") return ids.length ? this.batches.get(ids.at(-1)!)! : [];
    return ids.flatMap((id) => this.batches.get(id)!);
  }

  private lastBatch(): Row[] {
    const ids = [...this.batches.keys()].sort((a, b) => a - b);
    return ids.length ? this.batches.get(ids.at(-1)!)! : [];
  }

  async run(...actions: StreamAction[]): Promise<void> {
    let step = 0;
    try {
      await this.start();
      for (; step < actions.length; step++) await this.perform(actions[step]!);
      await this.query?.stop();
      if (this.query?.exception) throw this.query.exception;
    } catch (e) {
      await this.query?.stop().catch(() => undefined);
      throw new Error(this.report(actions, step, e as Error), { cause: e });
    } finally {
      await this.runner.close();
    }
  }

  private async settle(): Promise<void> {
    if (!this.query) throw new Error("the stream is stopped: add startStream() before checking results");
    await this.query.processAllAvailable();
  }

  private async perform(a: StreamAction): Promise<void> {
    switch (a.kind) {
      case "addData":
        return this.runner.addData([[a.stream, a.rows]]);
      case "multiAddData":
        return this.runner.addData(a.parts);
      case "assertNumStateRows": {
        await this.settle();
        this.recordProgress();
        const ids = [...this.progress.keys()].sort((x, y) => x - y);
        const last = this.progress.get(ids.at(-1)!);
        if (!last) throw new Error("no progress reported yet");
        const since = ids.filter((id) => id > this.stateRowsCheckedUpTo).map((id) => this.progress.get(id)!);
        this.stateRowsCheckedUpTo = ids.at(-1)!;
        const sum = (pick: (o: StreamingQueryProgress["stateOperators"][number]) => number) =>
          last.stateOperators.map((_, i) => since.reduce((n, p) => n + (p.stateOperators[i] ? pick(p.stateOperators[i]!) : 0), 0));
        const actual = {
          total: last.stateOperators.map((o) => o.numRowsTotal),
          updated: sum((o) => o.numRowsUpdated),
          ...(a.dropped ? { dropped: sum((o) => o.numRowsDroppedByWatermark) } : {}),
        };
        const expected = { total: a.total, updated: a.updated, ...(a.dropped ? { dropped: a.dropped } : {}) };
        if (!isDeepStrictEqual(actual, expected)) throw new Error(`state rows are ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)}`);
        return;
      }
      case "checkLastBatch":
        await this.settle();
        return compareRows("last batch", this.lastBatch(), a.rows, a.ordered);
      case "checkAnswer": {
        await this.settle();
        // As in Spark's StreamTest, the next checkNewAnswer reads what came after this check.
        const all = this.allRows();
        this.seenRows = all.length;
        return compareRows("answer", all, a.rows, a.ordered);
      }
      case "checkNewAnswer": {
        await this.settle();
        const all = this.allRows();
        const fresh = this.outputMode === "complete" ? all : all.slice(this.seenRows);
        this.seenRows = all.length;
        return compareRows("new rows", fresh, a.rows, false);
      }
      case "assertWatermark": {
        await this.settle();
        const wm = this.query!.lastProgress?.eventTime.watermark;
        const actual = wm === undefined ? null : Date.parse(wm);
        if (actual !== a.ms) throw new Error(`watermark is ${wm ?? "unset"}, expected ${a.ms === null ? "unset" : new Date(a.ms).toISOString()}`);
        return;
      }
      case "assertProgress": {
        await this.settle();
        const p = this.query!.lastProgress;
        if (!p) throw new Error("no progress reported yet");
        a.check(p);
        return;
      }
      case "stopStream":
        await this.query?.stop();
        this.recordProgress();
        if (this.query?.exception) throw this.query.exception;
        this.query = null;
        return;
      case "startStream":
        if (this.query?.isActive) throw new Error("startStream(): the stream is already running");
        return this.start();
      case "expectFailure": {
        const q = this.query!;
        try {
          await q.processAllAvailable();
          await q.awaitTermination(5000);
        } catch {
          // expected: examined below
        }
        const err = q.exception;
        if (!err) throw new Error(`expected the query to fail with ${String(a.pattern)}, but it did not fail`);
        const text = `${err.message}\n${(err.cause as Error)?.message ?? ""}`;
        const ok = typeof a.pattern === "string" ? text.includes(a.pattern) : a.pattern.test(text);
        if (!ok) throw new Error(`the query failed, but not as expected (${String(a.pattern)}): ${err.message}`);
        this.query = null;
        return;
      }
      case "advanceManualClock":
        if (!this.clock) throw new Error("advanceManualClock() needs a manual clock: testStream(df, mode, { clock: new ManualClock() })");
        this.clock.advance(a.ms);
        return this.settle();
      case "execute": {
        await this.settle();
        const query = this.query!;
        if (!isQueryObject(query)) throw new Error(`execute(${a.name}) runs code against the query object, which lives in another process here; write it as an action or a check`);
        await a.fn(query);
        return;
      }
    }
  }

  private recordProgress(): void {
    for (const p of this.query?.recentProgress ?? []) this.progress.set(p.batchId, p);
  }

  private report(actions: readonly StreamAction[], failed: number, e: Error): string {
    const lines = actions.map((a, i) => `${i === failed ? "=> " : "   "}${describe(a)}`);
    const progress = this.query?.lastProgress ?? null;
    return [
      `stream test failed at step ${failed + 1}: ${e.message}`,
      "",
      "actions:",
      ...lines,
      "",
      `sink (${this.outputMode} mode), by batch:`,
      ...[...this.batches.entries()].sort((a, b) => a[0] - b[0]).map(([id, rows]) => `  ${id}: ${show(rows)}`),
      "",
      `last progress: ${progress ? JSON.stringify(progress, null, 2) : "none"}`,
    ].join("\n");
  }
}

function describe(a: StreamAction): string {
  switch (a.kind) {
    case "addData":
      return `addData(${show(a.rows)})`;
    case "multiAddData":
      return `multiAddData(${a.parts.map(([, rows]) => show(rows)).join(", ")})`;
    case "assertNumStateRows":
      return `assertNumStateRows(total ${a.total.join("/")}, updated ${a.updated.join("/")}${a.dropped ? `, dropped ${a.dropped.join("/")}` : ""})`;
    case "checkLastBatch":
    case "checkAnswer":
      return `${a.kind}${a.ordered ? "InOrder" : ""}(${show(a.rows)})`;
    case "checkNewAnswer":
      return `checkNewAnswer(${show(a.rows)})`;
    case "assertWatermark":
      return `assertWatermark(${a.ms === null ? "null" : new Date(a.ms).toISOString()})`;
    case "expectFailure":
      return `expectFailure(${String(a.pattern)})`;
    case "execute":
      return `execute(${a.name})`;
    case "advanceManualClock":
      return `advanceManualClock(${a.ms} ms)`;
    default:
      return `${a.kind}()`;
  }
}

/** Rows as comparable plain data: Dates become ISO strings. */
function normalize(v: unknown): unknown {
  if (v instanceof Date) return v.toISOString();
  if (Array.isArray(v)) return v.map(normalize);
  if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, normalize(x)]));
  return v;
}

function show(rows: readonly Row[]): string {
  return JSON.stringify(normalize(rows));
}

function compareRows(what: string, actual: readonly Row[], expected: readonly Row[], ordered: boolean): void {
  const a = actual.map(normalize);
  const e = expected.map(normalize);
  // Sort by a key-order-independent text so expected rows may list columns in any order.
  const key = (r: unknown) => JSON.stringify(Object.entries(r as Row).sort(([x], [y]) => x.localeCompare(y)));
  const sa = ordered ? a : [...a].sort((x, y) => key(x).localeCompare(key(y)));
  const se = ordered ? e : [...e].sort((x, y) => key(x).localeCompare(key(y)));
  if (!isDeepStrictEqual(sa, se)) {
    throw new Error(`${what} differs${ordered ? " (in order)" : ""}:\n  expected ${JSON.stringify(se)}\n  actual   ${JSON.stringify(sa)}`);
  }
}

/** A query object of this process (embedded or remote), not a proxy for a query that runs in another process. */
function isQueryObject(q: QueryRun): q is QueryRun & StreamingQuery {
  return typeof (q as Partial<StreamingQuery>).explain === "function";
}
