/**
 * Every error Sluice raises to its users is one of these classes, so callers can branch on the
 * class and tests can match on it. Messages say what went wrong and what to do about it.
 */
export class SluiceError extends Error {
  override name = "SluiceError";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** Spark's error condition of an error, for callers that branch on it (a SQL server maps `sqlState` to its wire codes). */
export interface ErrorCondition {
  /** Spark's error class, e.g. "TABLE_OR_VIEW_NOT_FOUND" or "UNRESOLVED_COLUMN.WITH_SUGGESTION". */
  readonly errorClass?: string;
  /** The SQLSTATE Spark gives that class, e.g. "42P01". */
  readonly sqlState?: string;
  readonly cause?: unknown;
}

/** A query that cannot run as written: unknown column, wrong type, unsupported operation or mode. */
export class AnalysisError extends SluiceError {
  override name = "AnalysisError";
  /** Spark's error class where the error has one (the SQL front end's errors do). */
  readonly errorClass: string | undefined;
  /** Spark's SQLSTATE for `errorClass`. */
  readonly sqlState: string | undefined;
  constructor(message: string, options: ErrorCondition = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.errorClass = options.errorClass;
    this.sqlState = options.sqlState;
  }
}

/**
 * SQL text Sluice cannot parse (Spark's ParseException): the message is Spark's, with the line
 * (1-based) and position in it (0-based, as Spark counts), then the text with a caret line under
 * the offending token.
 */
export class ParseException extends AnalysisError {
  override name = "ParseException";
  constructor(
    message: string,
    /** 1-based line of the offending token. */
    readonly line: number,
    /** 0-based position of the offending token within its line (Spark's `pos`). */
    readonly column: number,
    condition: ErrorCondition & { readonly errorClass: string; readonly sqlState: string },
  ) {
    super(message, condition);
  }
}

/** An option or configuration value that failed validation. */
export class OptionError extends SluiceError {
  override name = "OptionError";
}

/** A record that could not be decoded under `mode: "FAILFAST"`. */
export class MalformedRecordError extends SluiceError {
  override name = "MalformedRecordError";
  constructor(
    message: string,
    readonly file: string | undefined,
    readonly line: number | undefined,
  ) {
    super(message);
  }
}

/**
 * A value outside the range Sluice computes with exactly: an int64 beyond ±(2^53 - 1) used as a
 * number (arithmetic, comparison, aggregate, `collect()`), an int64 result beyond that range, a
 * Uint64 above the int64 maximum, or a time outside JavaScript's Date range. Raised instead of a
 * silently rounded answer; `batch/numeric-columns.ts` states the rules.
 */
export class NumericRangeError extends SluiceError {
  override name = "NumericRangeError";
}

/** A checkpoint that does not belong to this query, is corrupt, or has a gap. */
export class CheckpointError extends SluiceError {
  override name = "CheckpointError";
}

/**
 * A query restarted on a checkpoint whose state one of its stateful operators cannot read: the
 * operator's key or value columns changed in number, order, type or nullability (Spark's
 * STATE_STORE_KEY_SCHEMA_NOT_COMPATIBLE and STATE_STORE_VALUE_SCHEMA_NOT_COMPATIBLE). The message
 * names the operator and the columns.
 */
export class StateSchemaError extends CheckpointError {
  override name = "StateSchemaError";
}

/**
 * Another run of a query wrote to this query's checkpoint (Spark's ConcurrentModificationException):
 * two runs on one checkpoint would each process every batch, so this run stops without writing.
 */
export class ConcurrentModificationError extends CheckpointError {
  override name = "ConcurrentModificationError";
}

/**
 * A broken invariant inside Sluice (an operator used outside its lifecycle, a plan node where it
 * cannot be): a bug to report, never the user's mistake.
 */
export class InternalError extends SluiceError {
  override name = "InternalError";
}

/**
 * An operator needs an answer from outside first (a writer schema from a schema registry, the id a
 * registry gives a schema) and cannot wait for it: operators run synchronously. Input tasks catch it,
 * await `prepare` (which caches the answer in the process) and run their operators again; a task's
 * operators keep nothing between runs. Where nothing can run again (after a stateful operator), it
 * surfaces as this error, whose message says what to do instead.
 */
export class PreparationNeeded extends SluiceError {
  override name = "PreparationNeeded";
  constructor(
    message: string,
    readonly prepare: () => Promise<unknown>,
  ) {
    super(message);
  }
}

/**
 * A task attempt that ran longer than the Session option `taskTimeout`: its worker was terminated
 * and the task retried; a batch fails with this error once every attempt timed out.
 */
export class TaskTimeoutError extends SluiceError {
  override name = "TaskTimeoutError";
  constructor(
    readonly timeoutMs: number,
    /** What the task was reading, e.g. "Kafka topic t partition 0 offsets [0, 500)". */
    readonly split: string,
  ) {
    super(
      `task timed out after ${timeoutMs} ms reading ${split}. ` +
        `If the task only needs longer, raise the Session option taskTimeout (e.g. new Session({ taskTimeout: "15 minutes" }); 0 turns the timeout off)`,
    );
  }
}

/**
 * A schema registry that could not be reached, or that refused or could not answer a request. The
 * message names the registry's URL (never its credentials), the request, the HTTP status and the
 * registry's own `error_code` and message; the same facts are fields, for callers that branch on them.
 */
export class SchemaRegistryError extends SluiceError {
  override name = "SchemaRegistryError";
  constructor(
    message: string,
    /** The registry's URL, or URLs, as the message shows them: without credentials. */
    readonly url: string,
    /** The request, such as "GET /schemas/ids/5". */
    readonly request: string,
    /** The HTTP status of the registry's answer; undefined when no answer came. */
    readonly status: number | undefined,
    /** Confluent's `error_code` from the answer (40403: no such schema, 409: incompatible schema, ...). */
    readonly errorCode: number | undefined,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * A user-defined function that threw, or returned what its declared type cannot hold. The message
 * names the UDF, its module and the row (for a vector UDF, the batch); `cause` holds what the
 * function threw. Like any task error it is retried by the query's task-retry policy
 * (`maxTaskAttempts`), and the batch fails with it once the attempts are spent.
 */
export class UdfError extends SluiceError {
  override name = "UdfError";
  constructor(
    message: string,
    /** The UDF's name. */
    readonly udf: string,
    /** The row of the batch it failed on; undefined for a vector UDF, which sees the batch at once. */
    readonly row: number | undefined,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** A `transformWithState` processor failed: its name, the method that threw and the grouping key it ran for. */
export class StatefulProcessorError extends SluiceError {
  override name = "StatefulProcessorError";
  constructor(
    message: string,
    readonly processor: string,
    /** "init", "handleInputRows", "handleExpiredTimer", "handleInitialState", "close", "its constructor" or "output". */
    readonly method: string,
    /** The grouping key (an object of the key columns); null outside a key. */
    readonly key: Readonly<Record<string, unknown>> | null,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Why a streaming query stopped with an error; `cause` holds the original error. */
export class StreamingQueryException extends SluiceError {
  override name = "StreamingQueryException";
  constructor(
    message: string,
    readonly queryId: string,
    readonly runId: string,
    cause: unknown,
  ) {
    super(message, { cause });
  }
}

/** Messages used in more than one place live here, so they stay the same everywhere. */
export const messages = {
  unresolvedColumn: (name: string, available: readonly string[]) =>
    `cannot resolve column "${name}": the input has ${available.length ? available.map((a) => `"${a}"`).join(", ") : "no columns"}`,
  typeMismatch: (what: string, expected: string, got: string) => `${what} needs ${expected}, but got ${got}`,
};

/** `session.serveSql()` could not start its server: the port is taken or the host cannot be listened on. */
export class SqlServerError extends SluiceError {
  override name = "SqlServerError";
}

/**
 * What a remote session (a Spark Connect server) cannot run the way Sluice does: a TypeScript UDF
 * or stateful processor, a memory stream, a value format that needs a schema registry or Spark's
 * Avro/Protobuf jars. Raised before anything is sent, never run locally instead; the message says
 * what to use instead.
 */
export class RemoteUnsupportedError extends SluiceError {
  override name = "RemoteUnsupportedError";
  constructor(
    message: string,
    /** What is refused, e.g. "UDF", "TRANSFORM_WITH_STATE", "MEMORY_STREAM", "SCHEMA_REGISTRY". */
    readonly reason: RemoteUnsupportedReason,
  ) {
    super(message);
  }
}

export type RemoteUnsupportedReason =
  | "UDF"
  | "TRANSFORM_WITH_STATE"
  | "MEMORY_STREAM"
  | "SCHEMA_REGISTRY"
  | "VALUE_FORMAT"
  | "ARROW_FILES"
  | "SOURCE_OPTION"
  | "FOREACH_BATCH"
  | "KAFKA_TRANSACTIONS"
  | "JS_MODULE_OPTION"
  | "MANUAL_CLOCK"
  | "LATENCY_TARGET";

/**
 * A Spark Connect server refused or failed a call, or could not be reached. Errors of Spark's keep
 * its error class, SQLSTATE and message parameters; `code` is the gRPC status ("UNAVAILABLE" when
 * the server cannot be reached, "UNAUTHENTICATED" for a missing or wrong token...).
 */
export class SparkConnectError extends SluiceError {
  override name = "SparkConnectError";
  constructor(
    message: string,
    readonly code: string,
    readonly condition: {
      readonly errorClass?: string;
      readonly sqlState?: string;
      readonly messageParameters?: Readonly<Record<string, string>>;
      /** The server's exception classes, most specific first (e.g. org.apache.spark.sql.AnalysisException). */
      readonly classes?: readonly string[];
    } = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
  get errorClass(): string | undefined {
    return this.condition.errorClass;
  }
  get sqlState(): string | undefined {
    return this.condition.sqlState;
  }
}

/**
 * A query that real-time mode cannot run (Spark's STREAMING_REAL_TIME_MODE error conditions): an
 * output mode other than update, a source or sink without real-time support, a stateful operator,
 * a checkpoint interval below the minimum. Raised by start(), before anything runs.
 */
export class RealTimeModeError extends AnalysisError {
  override name = "RealTimeModeError";
  constructor(
    /** The part of Spark's error class after "STREAMING_REAL_TIME_MODE.", e.g. "OUTPUT_MODE_NOT_SUPPORTED". */
    readonly condition: RealTimeModeCondition,
    message: string,
  ) {
    const errorClass = condition === "INVALID_TRIGGER_INTERVAL" ? "INVALID_STREAMING_REAL_TIME_MODE_TRIGGER_INTERVAL" : `STREAMING_REAL_TIME_MODE.${condition}`;
    super(`[${errorClass}] ${message}`, { errorClass, sqlState: "0A000" });
  }
}

export type RealTimeModeCondition =
  | "OUTPUT_MODE_NOT_SUPPORTED"
  | "INPUT_STREAM_NOT_SUPPORTED"
  | "SINK_NOT_SUPPORTED"
  | "OPERATOR_OR_SINK_NOT_IN_ALLOWLIST"
  | "IDENTICAL_SOURCES_IN_UNION_NOT_SUPPORTED"
  | "INVALID_TRIGGER_INTERVAL"
  | "CHECKPOINT_NOT_SUPPORTED";
