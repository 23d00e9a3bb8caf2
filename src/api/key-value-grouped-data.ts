import { z } from "zod";
import { validateOptions } from "../config/validate.js";
import { AnalysisError, OptionError } from "../errors/errors.js";
import type { LogicalPlan } from "../plan/logical.js";
import { isStreamingPlan } from "../plan/logical.js";
import type { TimeMode } from "../operators/stateful-processor.js";
import type { SchemaShape } from "../types/dtype.js";
import { DataFrame } from "./data-frame.js";
import type { SessionInternals } from "./session-internals.js";
import type { StatefulProcessorDefinition } from "./stateful-processor.js";

/** The result of `groupByKey`: rows grouped by key columns, for `transformWithState`. */
export class KeyValueGroupedData<S extends SchemaShape, K extends string> {
  /** Phantom: the key columns. */
  declare readonly __keys?: K;

  /** @internal */
  constructor(
    private readonly session: SessionInternals,
    /** @internal */
    readonly input: LogicalPlan,
    /** @internal */
    readonly keys: readonly string[],
  ) {}

  /**
   * Arbitrary stateful processing (Spark 4's transformWithState): each grouping key's rows of a
   * batch go to the processor, which keeps typed state per key (value, list and map state, with
   * TTL in processing-time mode), registers timers, and emits rows of its output schema.
   * `outputMode` is what the processor's rows mean to the sink: "append" (final rows) or "update".
   * `initialState` (a static DataFrame grouped by its key columns) seeds the state in the
   * query's first batch, one `handleInitialState` call per key.
   */
  transformWithState<O extends SchemaShape>(
    processor: StatefulProcessorDefinition<O>,
    timeMode: TimeMode,
    outputMode: "append" | "update",
    options: { readonly initialState?: KeyValueGroupedData<any, any> } = {},
  ): DataFrame<O> {
    const o = validateOptions(optionsSchema, { processor, timeMode, outputMode, ...options }, "transformWithState");
    const initial = o.initialState as KeyValueGroupedData<any, any> | undefined;
    if (initial && isStreamingPlan(initial.input)) {
      throw new AnalysisError("transformWithState: initialState must be a static DataFrame (session.read...), grouped by its key columns; a stream cannot seed state");
    }
    if (initial && initial.keys.length !== this.keys.length) {
      throw new AnalysisError(`transformWithState: initialState is grouped by ${initial.keys.length} column(s) and the input by ${this.keys.length}; group both by the same key`);
    }
    return new DataFrame(this.session, {
      kind: "transformWithState",
      input: this.input,
      keys: this.keys,
      processor: processor.ref,
      timeMode,
      outputMode,
      fields: processor.fields,
      initialState: initial ? { plan: initial.input, keys: initial.keys } : null,
    });
  }
}

const optionsSchema = z.strictObject({
  processor: z.custom<StatefulProcessorDefinition<any>>((v) => typeof v === "object" && v !== null && (v as { ref?: { kind?: string } }).ref?.kind === "processorRef", {
    error: "the processor must come from statefulProcessor(module, exportName, { outputSchema })",
  }),
  timeMode: z.enum(["none", "processingTime", "eventTime"], { error: 'timeMode must be "none", "processingTime" or "eventTime"' }),
  outputMode: z.enum(["append", "update"], { error: 'outputMode must be "append" or "update" (Spark does not run transformWithState in complete mode)' }),
  initialState: z.custom<KeyValueGroupedData<any, any>>((v) => v instanceof KeyValueGroupedData, { error: 'initialState must be a static DataFrame grouped by its key columns: staticDf.groupByKey("key")' }).optional(),
});

/** Checks groupByKey's columns: at least one. */
export function checkGroupingKeys(keys: readonly string[]): void {
  if (keys.length === 0) throw new OptionError("groupByKey needs at least one key column");
}
