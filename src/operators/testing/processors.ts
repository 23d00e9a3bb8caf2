// Stateful processors for the transformWithState tests: modules the engine imports by URL and
// export name, as users' processors are. Most are Spark's own test processors (TransformWithStateSuite).
import { isMainThread } from "node:worker_threads";
import type {
  ExpiredTimerInfo,
  ListState,
  MapState,
  ProcessorContext,
  StatefulProcessor,
  StatefulProcessorHandle,
  TimerValues,
  ValueState,
} from "../stateful-processor.js";

type Value = { value: string };
type KeyCount = { key: string; count: string };

/**
 * Spark's RunningCountStatefulProcessor: counts the batches a key had rows in; at 3 the count is
 * cleared and nothing is emitted.
 */
export class RunningCount implements StatefulProcessor<Value, Value, KeyCount> {
  protected count!: ValueState<number>;
  protected handle!: StatefulProcessorHandle;

  init(handle: StatefulProcessorHandle): void {
    this.handle = handle;
    this.count = handle.getValueState<number>("countState");
  }

  handleInputRows(key: Value, _rows: readonly Value[], _timers: TimerValues): KeyCount[] {
    return this.increment(key.value);
  }

  protected increment(key: string): KeyCount[] {
    const count = (this.count.get() ?? 0) + 1;
    if (count === 3) {
      this.count.clear();
      return [];
    }
    this.count.update(count);
    return [{ key, count: String(count) }];
  }
}

/** Spark's RunningCountStatefulProcessorWithProcTimeTimer: keys "a" and "c" get a timer 5 s after their first rows; it clears the count and emits -1. */
export class RunningCountWithProcessingTimeTimer extends RunningCount {
  override handleInputRows(key: Value, _rows: readonly Value[], timers: TimerValues): KeyCount[] {
    if ((this.count.get() ?? 0) === 0 && (key.value === "a" || key.value === "c")) this.handle.registerTimer(timers.currentProcessingTimeMs + 5000);
    return this.increment(key.value);
  }

  handleExpiredTimer(key: Value): KeyCount[] {
    this.count.clear();
    return [{ key: key.value, count: "-1" }];
  }
}

type KeyTime = { key: string; eventTime: Date };
type KeyMax = { key: string; maxEventTimeSec: number };

/**
 * Spark's MaxEventTimeStatefulProcessor: emits a key's largest event time (seconds) so far and
 * keeps one event-time timer at that time + 5 s; when it fires the key's state goes and -1 comes out.
 */
export class MaxEventTime implements StatefulProcessor<{ key: string }, KeyTime, KeyMax> {
  private maxSec!: ValueState<number>;
  private timer!: ValueState<number>;
  private handle!: StatefulProcessorHandle;

  init(handle: StatefulProcessorHandle): void {
    this.handle = handle;
    this.maxSec = handle.getValueState<number>("maxEventTimeState");
    this.timer = handle.getValueState<number>("timerState");
  }

  handleInputRows(key: { key: string }, rows: readonly KeyTime[]): KeyMax[] {
    const maxSec = Math.max(...rows.map((r) => r.eventTime.getTime() / 1000), this.maxSec.get() ?? 0);
    this.maxSec.update(maxSec);
    const previous = this.timer.get();
    if (previous !== undefined) this.handle.deleteTimer(previous);
    this.handle.registerTimer((maxSec + 5) * 1000);
    this.timer.update((maxSec + 5) * 1000);
    return [{ key: key.key, maxEventTimeSec: maxSec }];
  }

  handleExpiredTimer(key: { key: string }, _timers: TimerValues, _expired: ExpiredTimerInfo): KeyMax[] {
    this.maxSec.clear();
    this.timer.clear();
    return [{ key: key.key, maxEventTimeSec: -1 }];
  }
}

type Word = { user: string; word: string };
type Summary = { user: string; words: string; distinct: number; top: string };

/** A list of each user's words in arrival order and a map of word counts: the list and map state API. */
export class WordHistory implements StatefulProcessor<{ user: string }, Word, Summary> {
  private words!: ListState<string>;
  private counts!: MapState<string, number>;

  init(handle: StatefulProcessorHandle): void {
    this.words = handle.getListState<string>("words");
    this.counts = handle.getMapState<string, number>("counts");
  }

  handleInputRows(key: { user: string }, rows: readonly Word[]): Summary[] {
    for (const r of rows) {
      if (r.word === "reset") {
        this.words.clear();
        this.counts.clear();
        continue;
      }
      if (r.word.startsWith("-")) {
        this.counts.removeKey(r.word.slice(1));
        this.words.put(this.words.get().filter((w) => w !== r.word.slice(1)));
        continue;
      }
      this.words.appendValue(r.word);
      this.counts.updateValue(r.word, (this.counts.getValue(r.word) ?? 0) + 1);
    }
    const entries = this.counts.entries().sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    return [{ user: key.user, words: this.words.get().join(" "), distinct: this.counts.keys().length, top: entries[0]?.[0] ?? "" }];
  }
}

/** A count per key whose value lives `ttl` (processing time) after its last update: the key starts again at 1 once it expired. */
export class ExpiringCount implements StatefulProcessor<Value, Value, KeyCount> {
  private count!: ValueState<number>;
  private seen!: ListState<number>;
  private last!: MapState<string, number>;

  constructor(private readonly args: { ttl: string }) {}

  init(handle: StatefulProcessorHandle): void {
    this.count = handle.getValueState<number>("count", { ttl: this.args.ttl });
    this.seen = handle.getListState<number>("seen", { ttl: this.args.ttl });
    this.last = handle.getMapState<string, number>("last", { ttl: this.args.ttl });
  }

  handleInputRows(key: Value, rows: readonly Value[], timers: TimerValues): KeyCount[] {
    const count = (this.count.get() ?? 0) + rows.length;
    this.count.update(count);
    this.seen.appendValue(timers.currentProcessingTimeMs);
    this.last.updateValue("at", timers.currentProcessingTimeMs);
    return [{ key: key.value, count: `${count}/${this.seen.get().length}/${this.last.getValue("at")}` }];
  }
}

type Seeded = { key: string; count: number };

/** A count that starts from the initial state's `count` for the keys it has. */
export class SeededCount implements StatefulProcessor<Value, Value, Seeded> {
  private count!: ValueState<number>;

  init(handle: StatefulProcessorHandle): void {
    this.count = handle.getValueState<number>("count");
  }

  handleInitialState(_key: Value, initial: Record<string, unknown>): void {
    this.count.update(initial.count as number);
  }

  handleInputRows(key: Value, rows: readonly Value[]): Seeded[] {
    const count = (this.count.get() ?? 0) + rows.length;
    this.count.update(count);
    return [{ key: key.value, count }];
  }
}

/** Throws for the key "boom": errors from user code name the processor and the key. */
export class FailsOnBoom implements StatefulProcessor<Value, Value, KeyCount> {
  init(): void {}

  handleInputRows(key: Value): KeyCount[] {
    if (key.value === "boom") throw new Error("cannot count a boom");
    return [{ key: key.value, count: "1" }];
  }
}

/** Declares a TTL in any time mode, or registers a timer in "none" mode, as `args.mistake` says: Spark's refusals. */
export class Misuses implements StatefulProcessor<Value, Value, KeyCount> {
  private handle!: StatefulProcessorHandle;

  constructor(private readonly args: { mistake: "ttl" | "timer" | "twice" | "late-declare" | "bad-output" }) {}

  init(handle: StatefulProcessorHandle): void {
    this.handle = handle;
    if (this.args.mistake === "ttl") handle.getValueState("v", { ttl: "1 minute" });
    if (this.args.mistake === "twice") {
      handle.getValueState("v");
      handle.getListState("v");
    }
  }

  handleInputRows(key: Value): KeyCount[] {
    if (this.args.mistake === "timer") this.handle.registerTimer(1000);
    if (this.args.mistake === "late-declare") this.handle.getValueState("late");
    if (this.args.mistake === "bad-output") return [{ key: key.value, count: 7 as unknown as string }];
    return [{ key: key.value, count: "1" }];
  }
}

type Placement = { key: string; thread: string; instances: number };

/** Where it runs: the worker thread's id ("main" on the driver), and how many keys its instance saw (one instance per task). */
export class WhereItRuns implements StatefulProcessor<Value, Value, Placement> {
  private keysSeen = 0;

  init(): void {}

  handleInputRows(key: Value): Placement[] {
    this.keysSeen++;
    return [{ key: key.value, thread: isMainThread ? "main" : "worker", instances: this.keysSeen }];
  }
}

type Scored = { key: string; labels: string; sum: number; scaled: string };

/**
 * Calls the UDFs it was given: the row-wise `label` per row, the vector `scaleAndAdd` over the
 * key's values at once; keeps the running sum in state.
 */
export class ScoresWithUdfs implements StatefulProcessor<Value, { value: string; n: number }, Scored> {
  private sum!: ValueState<number>;
  private udfs!: Readonly<Record<string, (...args: any[]) => any>>;

  init(handle: StatefulProcessorHandle, context: ProcessorContext): void {
    this.sum = handle.getValueState<number>("sum");
    this.udfs = context.udfs;
  }

  handleInputRows(key: Value, rows: readonly { value: string; n: number }[]): Scored[] {
    const labels = rows.map((r) => this.udfs.label!(key.value, r.n) as string);
    const ns = rows.map((r) => r.n);
    const scaled = this.udfs.scaleAndAdd!(ns, ns) as number[];
    const sum = (this.sum.get() ?? 0) + ns.reduce((a, b) => a + b, 0);
    this.sum.update(sum);
    return [{ key: key.value, labels: labels.join(","), sum, scaled: scaled.join(",") }];
  }
}
