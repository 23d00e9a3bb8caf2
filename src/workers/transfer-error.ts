import {
  AnalysisError,
  CheckpointError,
  MalformedRecordError,
  NumericRangeError,
  OptionError,
  SchemaRegistryError,
  SluiceError,
  StatefulProcessorError,
  UdfError,
} from "../errors/errors.js";

/**
 * Errors across the thread boundary. Structured clone keeps only the message of an error and
 * turns every class it does not know into a plain `Error` (name included), so a task's error
 * travels as plain data and is rebuilt on the driver: as its own class when that class is one the
 * driver knows (Sluice's errors, JavaScript's built-in ones), otherwise as a `SluiceError` that
 * keeps the original `name` and `message`. The worker's stack is kept: it says where it failed.
 */

export interface PackedError {
  /**
   * The class the driver rebuilds: the nearest known one, found with instanceof (so a subclass of
   * AnalysisError still arrives as an AnalysisError); null when no known class fits.
   */
  readonly className: string | null;
  readonly name: string;
  readonly message: string;
  readonly stack: string | undefined;
  /** Node system errors (ENOENT, ECONNRESET, ...). */
  readonly code: string | undefined;
  /** MalformedRecordError's position. */
  readonly file: string | undefined;
  readonly line: number | undefined;
  /** SchemaRegistryError's request and answer. */
  readonly registry?: { readonly url: string; readonly request: string; readonly status: number | undefined; readonly errorCode: number | undefined };
  /** UdfError's function and row. */
  readonly udf?: { readonly name: string; readonly row: number | undefined };
  /** StatefulProcessorError's processor, method and grouping key (plain data: structured clone keeps it). */
  readonly processor?: { readonly name: string; readonly method: string; readonly key: Readonly<Record<string, unknown>> | null };
  readonly cause: PackedError | undefined;
}

type Rebuild = (p: PackedError) => Error;

/** Most specific first: the first match is the class the error is rebuilt as. */
const KNOWN: readonly (readonly [string, abstract new (...args: never[]) => Error, Rebuild])[] = [
  ["MalformedRecordError", MalformedRecordError, (p) => new MalformedRecordError(p.message, p.file, p.line)],
  ["AnalysisError", AnalysisError, (p) => new AnalysisError(p.message)],
  [
    "SchemaRegistryError",
    SchemaRegistryError,
    (p) => new SchemaRegistryError(p.message, p.registry?.url ?? "", p.registry?.request ?? "", p.registry?.status, p.registry?.errorCode),
  ],
  ["OptionError", OptionError, (p) => new OptionError(p.message)],
  ["UdfError", UdfError, (p) => new UdfError(p.message, p.udf?.name ?? "", p.udf?.row)],
  [
    "StatefulProcessorError",
    StatefulProcessorError,
    (p) => new StatefulProcessorError(p.message, p.processor?.name ?? "", p.processor?.method ?? "", p.processor?.key ?? null),
  ],
  ["CheckpointError", CheckpointError, (p) => new CheckpointError(p.message)],
  ["NumericRangeError", NumericRangeError, (p) => new NumericRangeError(p.message)],
  ["SluiceError", SluiceError, (p) => new SluiceError(p.message)],
  ["TypeError", TypeError, (p) => new TypeError(p.message)],
  ["RangeError", RangeError, (p) => new RangeError(p.message)],
  ["SyntaxError", SyntaxError, (p) => new SyntaxError(p.message)],
  ["ReferenceError", ReferenceError, (p) => new ReferenceError(p.message)],
  ["EvalError", EvalError, (p) => new EvalError(p.message)],
  ["URIError", URIError, (p) => new URIError(p.message)],
  ["AggregateError", AggregateError, (p) => new AggregateError([], p.message)],
];

const MAX_CAUSE_DEPTH = 4;

export function packError(error: unknown, depth = 0): PackedError {
  if (!(error instanceof Error)) {
    return { className: "Error", name: "Error", message: String(error), stack: undefined, code: undefined, file: undefined, line: undefined, cause: undefined };
  }
  const known = KNOWN.find(([, cls]) => error instanceof cls);
  const code = (error as { code?: unknown }).code;
  const cause = error.cause !== undefined && depth < MAX_CAUSE_DEPTH ? packError(error.cause, depth + 1) : undefined;
  return {
    className: known?.[0] ?? (error.constructor === Error ? "Error" : null),
    name: error.name,
    message: error.message,
    stack: error.stack,
    code: typeof code === "string" ? code : undefined,
    file: error instanceof MalformedRecordError ? error.file : undefined,
    line: error instanceof MalformedRecordError ? error.line : undefined,
    ...(error instanceof SchemaRegistryError
      ? { registry: { url: error.url, request: error.request, status: error.status, errorCode: error.errorCode } }
      : {}),
    ...(error instanceof UdfError ? { udf: { name: error.udf, row: error.row } } : {}),
    ...(error instanceof StatefulProcessorError ? { processor: { name: error.processor, method: error.method, key: error.key } } : {}),
    cause,
  };
}

export function unpackError(p: PackedError): Error {
  const known = KNOWN.find(([className]) => className === p.className);
  let error: Error;
  if (known) {
    error = known[2](p);
  } else if (p.className === "Error") {
    error = new Error(p.message);
  } else {
    // A class this thread cannot rebuild (a user's own error class, say).
    error = new SluiceError(p.message);
  }
  if (error.name !== p.name) error.name = p.name;
  if (p.stack !== undefined) error.stack = p.stack;
  if (p.code !== undefined) (error as Error & { code?: string }).code = p.code;
  if (p.cause !== undefined) error.cause = unpackError(p.cause);
  return error;
}
