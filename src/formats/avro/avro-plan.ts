import type { AvroReader } from "./avro-reader.js";

/**
 * A decode plan: what to do with each value of a record written with one writer schema, to fill
 * the reader's columns. Compiled once per (writer schema, reader columns) pair by
 * avro-resolution.ts and run per record by avro-record-decoder.ts, so no schema object is looked
 * at while records are decoded.
 *
 * Step k reads (or skips) the writer's k-th value: `ops[k]` says how, `columns[k]` is the column
 * it fills (-1 for skips), `args[k]` is the op's argument (below). Defaults for reader columns the
 * writer lacks come last, as constant steps that read nothing. Op codes run densely from 0, which
 * lets the decoder's switch compile to a jump table.
 */

// Skips: the writer's value is not read.
/** A varint (int, long, enum). */
export const OP_SKIP_VARINT = 0;
/** `args` bytes (boolean, float, double, fixed, records of those). */
export const OP_SKIP_FIXED = 1;
/** A length and that many bytes (bytes, string). */
export const OP_SKIP_BYTES = 2;
/** Anything else: `skippers[args]`. */
export const OP_SKIP_WITH = 3;

// Reads into a column, named after the writer type, then the column type.
export const OP_INT_INT32 = 4;
export const OP_INT_INT64 = 5;
export const OP_INT_FLOAT64 = 6;
/** Days since the epoch, to a timestamp at midnight UTC. */
export const OP_DATE_TIMESTAMP = 7;
export const OP_LONG_INT64 = 8;
export const OP_LONG_FLOAT64 = 9;
/** A long in `args` units per millisecond (1, 1000 or 1000000), floored to epoch ms. */
export const OP_LONG_TIMESTAMP = 10;
export const OP_FLOAT_FLOAT64 = 11;
export const OP_DOUBLE_FLOAT64 = 12;
export const OP_BOOLEAN = 13;
/** A length and bytes (bytes or string) into a string or binary column. */
export const OP_BYTES = 14;
/** `args` bytes (fixed) into a binary column. */
export const OP_FIXED = 15;
/** An enum index into a string column, through `enums[args]`. */
export const OP_ENUM = 16;
/** A union index, then the op of that branch: `unions[args]`. */
export const OP_UNION = 17;

// Only as a union branch's op.
/** The null branch of a nullable column: the column stays null. */
export const OP_NULL = 18;
/** The null branch of a column that is not nullable: the record does not match. */
export const OP_NULL_REFUSED = 19;
/** A branch the column cannot read: `refusals[args]` says why. */
export const OP_BRANCH_REFUSED = 20;

// Reader defaults: constants, reading nothing.
export const OP_CONST_INT32 = 21;
/** `constWords[2 * args]`, `constWords[2 * args + 1]`: an int64 or timestamp. */
export const OP_CONST_WORDS = 22;
export const OP_CONST_FLOAT64 = 23;
export const OP_CONST_BOOLEAN = 24;
/** `constBytes[args]` into a string or binary column. */
export const OP_CONST_BYTES = 25;

/** A skipper for a value of any type, compiled once (avro-skip.ts). */
export type Skipper = (reader: AvroReader) => void;

/** A writer union read into one column: each branch's op and argument. */
export interface UnionTable {
  readonly ops: Int32Array;
  readonly args: Int32Array;
}

/**
 * A writer enum read into a string column: the reader's symbol for each writer index as a slice of
 * `bytes` (UTF-8), or start -1 for a symbol the reader lacks and has no default for.
 */
export interface EnumTable {
  readonly bytes: Uint8Array;
  readonly starts: Int32Array;
  readonly ends: Int32Array;
  /** Writer symbols and the reader enum's name, for messages. */
  readonly symbols: readonly string[];
  readonly readerEnum: string;
}

export interface DecodePlan {
  readonly ops: Int32Array;
  readonly columns: Int32Array;
  readonly args: Int32Array;
  /** The writer's field name of each step, for messages. */
  readonly names: readonly string[];
  readonly unions: readonly UnionTable[];
  readonly enums: readonly EnumTable[];
  readonly skippers: readonly Skipper[];
  readonly refusals: readonly string[];
  readonly constNumbers: Float64Array;
  readonly constWords: Int32Array;
  readonly constBytes: readonly Uint8Array[];
}
