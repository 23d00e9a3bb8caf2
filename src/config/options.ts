import { z } from "zod";
import { durationSchema } from "./duration.js";
import { sqlConfSchema } from "./sql-conf.js";

/**
 * zod schemas for every user-facing option. Option names follow Spark's. Values given as strings
 * (as Spark's `option(key, "value")` always does) are coerced where Spark would accept them.
 */

const positiveInt = (what: string) =>
  z.coerce.number().int(`${what} must be a whole number`).positive(`${what} must be greater than 0`);

const duration = durationSchema;

/**
 * A server of the session's (the web UI, the metrics endpoint): off (false, the default), on at its
 * default port or the next free one (true), or at a port and address; port 0 takes any free port.
 */
const serverOption = (option: string, defaultPort: number) =>
  z
    .union(
      [
        z.boolean(),
        z
          .object({
            port: z
              .number({ error: `${option}.port must be a number` })
              // A refinement, not .int(): it leaves the union choosing this shape, so the message names the port.
              .refine(Number.isInteger, `${option}.port must be a whole number`)
              .min(0, `${option}.port must be 0 (any free port) to 65535`)
              .max(65535, `${option}.port must be 0 (any free port) to 65535`)
              .optional(),
            host: z.string({ error: `${option}.host must be a string` }).min(1, `${option}.host must name an address, e.g. "127.0.0.1" or "0.0.0.0"`).optional(),
          })
          .strict(),
      ],
      { error: `${option} must be true, false or { port?: number; host?: string } (port ${defaultPort} by default, host 127.0.0.1)` },
    )
    .optional();
export type ServerOption = boolean | { port?: number; host?: string };

const connectionString = z
  .string({ error: 'remote must be a Spark Connect connection string, e.g. "sc://127.0.0.1:15002"' })
  .startsWith("sc://", 'remote must be a Spark Connect connection string starting with sc://, e.g. "sc://127.0.0.1:15002"');

/** `remote`: a Spark Connect server, and how the client talks to it. */
const remoteOption = z.union(
  [
    connectionString,
    z
      .object({
        url: connectionString,
        /** Calls that keep the server's session alive while queries run and nothing else is said: "60 seconds" by default. */
        keepAliveInterval: duration("remote.keepAliveInterval").optional(),
        /** Deadline of each short call (analyze, config, release): "60 seconds" by default. */
        callTimeout: duration("remote.callTimeout").optional(),
        /** HTTP/2 pings: a server that stops answering is noticed within about twice this; "10 seconds" by default. */
        pingInterval: duration("remote.pingInterval").optional(),
        /** Attempts to resume a broken result stream before the operation fails: 5 by default. */
        maxReattachAttempts: z.number().int("remote.maxReattachAttempts must be a whole number").min(0, "remote.maxReattachAttempts must be 0 or more").optional(),
      })
      .strict(),
  ],
  { error: 'remote must be a connection string ("sc://host:15002") or { url, keepAliveInterval?, callTimeout?, pingInterval?, maxReattachAttempts? }' },
);
export type RemoteOption = z.input<typeof remoteOption>;

/** A size in MiB of at least `min`: below it a worker could not load Sluice at all. */
const mebibytes = (name: string, min: number) =>
  z
    .number({ error: `${name} must be a finite number of MiB` })
    .min(min, `${name} must be at least ${min} (MiB)`)
    .optional();

export const sessionOptionsSchema = z
  .object({
    /** Worker threads for tasks; 0 runs every task inline on the driver. */
    workers: z.number().int("workers must be a whole number").min(0, "workers must be 0 (inline) or more").optional(),
    /**
     * Where queries without their own checkpointLocation keep their checkpoint (Spark's
     * spark.sql.streaming.checkpointLocation): `<this>/<queryName>`, or a new folder per start for
     * a query without a name.
     */
    checkpointLocation: z.string().min(1, "checkpointLocation must be a directory path").optional(),
    /**
     * How long `query.stop()` waits for the batch in flight before it abandons the run (Spark's
     * spark.sql.streaming.stopTimeout, which waits forever by default; Sluice's stop() is bounded).
     */
    stopTimeout: duration("stopTimeout").default(30_000),
    /** Attempts per task before the batch fails (Spark's spark.task.maxFailures). Default 4. */
    maxTaskAttempts: z.number().int().min(1, "maxTaskAttempts must be at least 1").optional(),
    /**
     * Batches whose logs and state stay recoverable (Spark's spark.sql.streaming.minBatchesToRetain);
     * older offsets, commits and state files are deleted.
     */
    minBatchesToRetain: z
      .number()
      .int("minBatchesToRetain must be a whole number")
      .min(1, "minBatchesToRetain must be at least 1: a batch re-runs from the state of the batch before it")
      .default(100),
    /** State versions between two state snapshots (Spark's spark.sql.streaming.stateStore.minDeltasForSnapshot). */
    minDeltasForSnapshot: z.number().int("minDeltasForSnapshot must be a whole number").min(1, "minDeltasForSnapshot must be at least 1").default(10),
    /**
     * How long one attempt of a task may run before it is abandoned (its worker thread terminated
     * and replaced) and retried: "5 minutes" (the default), "90 seconds", or milliseconds; 0 turns
     * the timeout off. With workers: 0 a task that never yields cannot be stopped: only tasks that
     * hang while awaiting are bounded there.
     */
    taskTimeout: duration("taskTimeout").optional(),
    /** Spark SQL settings by Spark's keys (see `session.conf`): `{ "spark.sql.streaming.noDataMicroBatches.enabled": false }`. */
    conf: sqlConfSchema.optional(),
    /** Wait before a task's second attempt, doubled before each next one: default "100 ms". */
    taskRetryBackoff: duration("taskRetryBackoff").optional(),
    /** Longest wait between two attempts of a task: default "5 seconds". */
    taskRetryMaxBackoff: duration("taskRetryMaxBackoff").optional(),
    /**
     * Each worker thread's heap, as Node's Worker `resourceLimits` (MiB). The young generation
     * defaults to 24 MiB, half V8's, so a worker's small heap is scavenged rather than fully
     * collected every few MiB (see TaskPool); raise `maxOldGenerationSizeMb` for tasks that hold
     * more than V8's default old generation.
     */
    workerResourceLimits: z
      .object({
        maxYoungGenerationSizeMb: mebibytes("workerResourceLimits.maxYoungGenerationSizeMb", 4),
        maxOldGenerationSizeMb: mebibytes("workerResourceLimits.maxOldGenerationSizeMb", 64),
        stackSizeMb: mebibytes("workerResourceLimits.stackSizeMb", 1),
      })
      .strict()
      .optional(),
    /**
     * The live web UI (Spark's Structured Streaming tab): off by default; true serves it on
     * 127.0.0.1:4040, or the next free port of the 16 after it (Spark's spark.port.maxRetries).
     */
    ui: serverOption("ui", 4040),
    /**
     * Prometheus metrics of every query's progress at `/metrics`: on the UI's server when the UI is
     * on (false turns them off); with a port, or true without the UI, on a server of their own
     * (port 9464 by default).
     */
    metrics: serverOption("metrics", 9464),
    /**
     * Run the session's queries on a Spark Connect server instead of in this process: its
     * connection string ("sc://host:15002/;token=...;use_ssl=true;user_id=..."), or that and the
     * client's settings. Off (embedded) by default.
     */
    remote: remoteOption.optional(),
  })
  .strict()
  .refine((o) => o.taskRetryBackoff === undefined || o.taskRetryMaxBackoff === undefined || o.taskRetryMaxBackoff >= o.taskRetryBackoff, {
    message: "taskRetryMaxBackoff must be at least taskRetryBackoff",
    path: ["taskRetryMaxBackoff"],
  });
export type SessionOptions = z.input<typeof sessionOptionsSchema>;

export const rateOptionsSchema = z
  .object({
    rowsPerSecond: positiveInt("rowsPerSecond").default(1),
    numPartitions: positiveInt("numPartitions").default(2),
    rampUpTime: duration("rampUpTime").default(0),
  })
  .strict();

export const readModeSchema = z.enum(["PERMISSIVE", "DROPMALFORMED", "FAILFAST"], {
  error: "mode must be one of PERMISSIVE, DROPMALFORMED, FAILFAST",
});

/** Spark's bad-record options, shared by every source that decodes JSON. */
export const badRecordOptions = {
  mode: z
    .string()
    .transform((s) => s.toUpperCase())
    .pipe(readModeSchema)
    .default("PERMISSIVE"),
  columnNameOfCorruptRecord: z.string().min(1).default("_corrupt_record"),
};

/** Which files of a folder a file source reads, and how many per trigger. */
const fileSelection = {
  maxFilesPerTrigger: positiveInt("maxFilesPerTrigger").optional(),
  pathGlobFilter: z.string().min(1).optional(),
};

/** Parquet and Arrow IPC files carry typed columns: no bad-record modes, no splitting of a file. */
export const columnarOptionsSchema = z.object(fileSelection).strict();

export const jsonOptionsSchema = z
  .object({
    ...badRecordOptions,
    ...fileSelection,
    /** Bytes per task when a large file is split (Spark's spark.sql.files.maxPartitionBytes). */
    maxPartitionBytes: positiveInt("maxPartitionBytes").default(16 * 1024 * 1024),
  })
  .strict();

export const outputModeSchema = z
  .string()
  .transform((s) => s.toLowerCase())
  .pipe(z.enum(["append", "update", "complete"], { error: "outputMode must be append, update or complete" }));
export type OutputMode = z.output<typeof outputModeSchema>;

const TRIGGER_FORMS =
  'trigger must be { processingTime: "1 second" }, { availableNow: true }, { once: true }, { latencyTarget: "200 ms" } or { realTime: "5 minutes" } (realTime: true for the default checkpoint interval)';

/** Spark's default batch duration (checkpoint interval) of a real-time trigger: 5 minutes. */
export const DEFAULT_REAL_TIME_BATCH_DURATION_MS = 5 * 60_000;

export const triggerSchema = z
  .object(
    {
      processingTime: duration("processingTime").optional(),
      availableNow: z.literal(true, { error: "availableNow must be true" }).optional(),
      once: z.literal(true, { error: "once must be true" }).optional(),
      latencyTarget: duration("latencyTarget")
        .refine((ms) => ms >= 1, { message: 'must be at least 1 millisecond, e.g. "200 ms"' })
        .optional(),
      /** Real-time mode: the duration is how often progress is checkpointed, not a latency (runtime/real-time-execution.ts). */
      realTime: z
        .union([z.literal(true), duration("realTime")], {
          error: 'realTime must be a checkpoint interval such as "5 minutes" (a duration string or milliseconds), or true for the default 5 minutes',
        })
        .optional(),
    },
    { error: TRIGGER_FORMS },
  )
  .strict()
  .refine((t) => Object.keys(t).length === 1, { message: TRIGGER_FORMS });
export type TriggerInput =
  | { processingTime: string | number }
  | { availableNow: true }
  | { once: true }
  /** Sluice's adaptive trigger: batches back to back, each sized so results come within the target (runtime/batch-sizer.ts). */
  | { latencyTarget: string | number }
  | { realTime: string | number | true };
export type Trigger =
  | { readonly kind: "default" }
  | { readonly kind: "processingTime"; readonly intervalMs: number }
  | { readonly kind: "availableNow" }
  | { readonly kind: "once" }
  | { readonly kind: "latencyTarget"; readonly targetMs: number }
  /** Spark's RealTimeTrigger: long-running tasks, a checkpoint every `batchDurationMs`. */
  | { readonly kind: "realTime"; readonly batchDurationMs: number };

export function toTrigger(t: z.output<typeof triggerSchema> | undefined): Trigger {
  if (!t) return { kind: "default" };
  if (t.processingTime !== undefined) return t.processingTime === 0 ? { kind: "default" } : { kind: "processingTime", intervalMs: t.processingTime };
  if (t.availableNow) return { kind: "availableNow" };
  if (t.latencyTarget !== undefined) return { kind: "latencyTarget", targetMs: t.latencyTarget };
  if (t.realTime !== undefined) return { kind: "realTime", batchDurationMs: t.realTime === true ? DEFAULT_REAL_TIME_BATCH_DURATION_MS : t.realTime };
  return { kind: "once" };
}

export const consoleSinkOptionsSchema = z
  .object({
    numRows: positiveInt("numRows").default(20),
    truncate: z
      .union([z.boolean(), z.enum(["true", "false"]).transform((s) => s === "true")])
      .default(true),
  })
  .strict();

export const writerOptionsSchema = z
  .object({
    checkpointLocation: z.string().min(1, "checkpointLocation must be a directory path").optional(),
  })
  .passthrough();
