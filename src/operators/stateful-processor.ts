/**
 * The contract between `transformWithState` and user code (Spark 4's StatefulProcessor and
 * StatefulProcessorHandle, in TypeScript idiom). A processor is a class exported by a module
 * that the engine imports by URL and export name, never a closure, so the same query can run
 * wherever its operator runs; what it needs besides its rows travels as JSON `args`, passed to
 * its constructor.
 *
 * ```ts
 * export class CountPerUser implements StatefulProcessor<{ user: string }, Click, { user: string; count: number }> {
 *   private count!: ValueState<number>;
 *   init(handle: StatefulProcessorHandle) {
 *     this.count = handle.getValueState<number>("count");
 *   }
 *   handleInputRows(key: { user: string }, rows: readonly Click[]) {
 *     const count = (this.count.get() ?? 0) + rows.length;
 *     this.count.update(count);
 *     return [{ user: key.user, count }];
 *   }
 * }
 * ```
 *
 * State values are kept as the structured clone of what is stored (numbers, strings, booleans,
 * bigints, Dates, Uint8Arrays, arrays, Maps, Sets and plain objects of these); a class instance
 * comes back as a plain object.
 */

/**
 * Which clock timers and TTL follow (Spark's TimeMode): "none" (no timers), "processingTime"
 * (the batch's timestamp; TTL needs it), "eventTime" (the operator's watermark).
 */
export type TimeMode = "none" | "processingTime" | "eventTime";

/** The clocks as the current batch sees them (Spark's TimerValues). */
export interface TimerValues {
  /** The batch's timestamp (epoch ms): the processing time timers and TTL are judged by. */
  readonly currentProcessingTimeMs: number;
  /** The operator's eviction watermark (epoch ms) in event-time mode; null in other modes or before any. */
  readonly currentWatermarkMs: number | null;
}

/** The timer that fired (Spark's ExpiredTimerInfo). */
export interface ExpiredTimerInfo {
  readonly expiryTimeMs: number;
}

/** How long a state value lives after its last write, by processing time (Spark's TTLConfig). */
export interface StateOptions {
  /** A duration ("30 minutes") or milliseconds; only in processingTime mode. */
  readonly ttl?: string | number;
}

/** One value per grouping key. */
export interface ValueState<T> {
  exists(): boolean;
  /** The value, or undefined when there is none (or it expired). */
  get(): T | undefined;
  update(value: T): void;
  clear(): void;
}

/** A list per grouping key; with a TTL each element expires on its own. */
export interface ListState<T> {
  exists(): boolean;
  get(): T[];
  /** Replaces the list. */
  put(values: readonly T[]): void;
  appendValue(value: T): void;
  appendList(values: readonly T[]): void;
  clear(): void;
}

/** A map per grouping key; with a TTL each entry expires on its own. Keys compare by structure. */
export interface MapState<K, V> {
  exists(): boolean;
  getValue(key: K): V | undefined;
  containsKey(key: K): boolean;
  updateValue(key: K, value: V): void;
  removeKey(key: K): void;
  entries(): [K, V][];
  keys(): K[];
  values(): V[];
  clear(): void;
}

/** What a processor reaches its state and timers through (Spark's StatefulProcessorHandle). */
export interface StatefulProcessorHandle {
  /** State variables are declared in `init`, each name once. */
  getValueState<T>(name: string, options?: StateOptions): ValueState<T>;
  getListState<T>(name: string, options?: StateOptions): ListState<T>;
  getMapState<K, V>(name: string, options?: StateOptions): MapState<K, V>;
  /** Registers a timer of the current grouping key (processingTime or eventTime mode). */
  registerTimer(expiryTimeMs: number): void;
  deleteTimer(expiryTimeMs: number): void;
  /** The current grouping key's timers, earliest first. */
  listTimers(): number[];
  /** Drops every key's values of a state variable that an earlier version of the processor declared. */
  deleteIfExists(name: string): void;
}

export interface ProcessorContext {
  readonly timeMode: TimeMode;
  readonly outputMode: "append" | "update";
  /** The UDFs given with `statefulProcessor(..., { udfs })`, callable on values (see ProcessorUdf). */
  readonly udfs: Readonly<Record<string, ProcessorUdf>>;
}

/**
 * A UDF as a processor calls it: a row-wise `udf` with one value per argument, returning one value;
 * a `vectorUdf` with one array (or Arrow Vector) of values per argument, returning an array. Results
 * are checked against the UDF's declared type and come back as `collect()` gives values; what the
 * function throws is a UdfError naming it.
 */
export type ProcessorUdf = (...args: any[]) => any;

/**
 * A stateful processor: K is the grouping key (an object of the key columns), I an input row, O
 * an output row (as the declared output schema says). Each method that returns rows may return
 * any iterable (an array, a generator).
 */
export interface StatefulProcessor<K, I, O> {
  /**
   * Called first, before any rows: declare state variables here. As in Spark, each task of a batch
   * (a share of its grouping keys, in a worker) has its own instance: keep what outlives a call in
   * state, not in fields.
   */
  init(handle: StatefulProcessorHandle, context: ProcessorContext): void;
  /** The batch's rows of one grouping key, in arrival order; called once per key per batch. */
  handleInputRows(key: K, rows: readonly I[], timerValues: TimerValues): Iterable<O>;
  /** A timer of `key` fired; it is deleted once this returns. */
  handleExpiredTimer?(key: K, timerValues: TimerValues, expiredTimer: ExpiredTimerInfo): Iterable<O>;
  /** A row of the initial state (first batch only), before any input. */
  handleInitialState?(key: K, initialState: Record<string, unknown>, timerValues: TimerValues): void;
  close?(): void;
}

/** The constructor a processor module exports: called with the processor's `args`. */
export type StatefulProcessorClass = new (args: unknown) => StatefulProcessor<any, any, any>;
