import { MS_PER_DAY, setInt64Words } from "../../batch/numeric-columns.js";
import { AnalysisError, InternalError } from "../../errors/errors.js";
import type { Field } from "../../types/dtype.js";
import * as P from "./avro-plan.js";
import type { AvroEnum, AvroSchema } from "./avro-schema-types.js";
import { simpleName } from "./avro-schema-types.js";

/**
 * The data a decode plan carries besides its op codes (avro-plan.ts): enum symbol tables and the
 * constants of reader defaults, built once when the plan is compiled (avro-resolution.ts).
 */

/** Units of a long timestamp per millisecond. */
export const PER_MS: Readonly<Record<string, number>> = {
  "timestamp-millis": 1,
  "local-timestamp-millis": 1,
  "timestamp-micros": 1000,
  "local-timestamp-micros": 1000,
  "timestamp-nanos": 1_000_000,
  "local-timestamp-nanos": 1_000_000,
};
const MAX_DATE_DAYS = 100_000_000;
const MAX_TIMESTAMP_MS = 8.64e15;

const utf8 = new TextEncoder();

/** The specification's name match for records and enums: unqualified names, or a reader alias. */
export function sameName(writerName: string, reader: { readonly name: string; readonly aliases: readonly string[] }): boolean {
  const name = simpleName(writerName);
  return simpleName(reader.name) === name || reader.aliases.some((a) => a === writerName || simpleName(a) === name);
}

/**
 * A writer enum read into a string column: each writer symbol as itself, or with a reader enum,
 * as the reader has it (its default for a symbol it lacks; none when it has no default).
 */
export function enumTable(writer: AvroEnum, reader: AvroSchema | null): P.EnumTable {
  const readerEnum = reader?.type === "enum" ? reader : null;
  if (readerEnum !== null && !sameName(writer.name, readerEnum)) {
    throw new AnalysisError(
      `the writer's enum ${writer.name} and the reader's enum ${readerEnum.name} have different names, which Avro resolution refuses; add "${simpleName(writer.name)}" to the reader enum's aliases`,
    );
  }
  const symbols = writer.symbols.map((s) => (readerEnum === null || readerEnum.symbols.includes(s) ? s : readerEnum.default));
  const encoded = symbols.map((s) => (s === null ? null : utf8.encode(s)));
  const bytes = new Uint8Array(encoded.reduce((n, e) => n + (e?.length ?? 0), 0));
  const starts = new Int32Array(symbols.length);
  const ends = new Int32Array(symbols.length);
  let at = 0;
  encoded.forEach((e, i) => {
    if (e === null) {
      starts[i] = -1;
      return;
    }
    bytes.set(e, at);
    starts[i] = at;
    ends[i] = at += e.length;
  });
  return { bytes, starts, ends, symbols: writer.symbols, readerEnum: readerEnum === null ? "enum" : `enum ${readerEnum.name}` };
}

/** Reader defaults as constants of a plan, in the form each column holds them. */
export class ConstantPool {
  readonly numbers: number[] = [];
  /** int64 and timestamp constants as (low, high) word pairs. */
  readonly words: number[] = [];
  readonly bytes: Uint8Array[] = [];

  /** The constant step writing a reader default of Avro type `type` (the parser checked it fits) into `column`. */
  constant(column: Field, type: AvroSchema, value: unknown): { op: number; arg: number } {
    switch (column.type) {
      case "int32":
        return this.number(P.OP_CONST_INT32, value as number);
      case "float64":
        return this.number(P.OP_CONST_FLOAT64, value as number);
      case "boolean":
        return this.number(P.OP_CONST_BOOLEAN, value ? 1 : 0);
      case "int64":
        return this.int64(value as number);
      case "timestamp": {
        const perMs = type.type === "long" && type.logicalType !== null ? (PER_MS[type.logicalType.name] ?? 1) : 1;
        const ms = type.type === "int" ? (value as number) * MS_PER_DAY : Math.floor((value as number) / perMs);
        if (!(Math.abs(ms) <= MAX_TIMESTAMP_MS) || (type.type === "int" && Math.abs(value as number) > MAX_DATE_DAYS)) {
          throw new AnalysisError(`the reader's default for column "${column.name}" is ${ms} ms since the epoch, outside the ±8.64e15 ms that Sluice timestamps cover`);
        }
        return this.int64(ms);
      }
      case "string":
      case "binary": {
        // Bytes and fixed defaults hold one byte per character; strings and symbols are UTF-8.
        const text = value as string;
        const bytes = type.type === "bytes" || type.type === "fixed" ? Uint8Array.from(text, (ch) => ch.charCodeAt(0)) : utf8.encode(text);
        return { op: P.OP_CONST_BYTES, arg: this.bytes.push(bytes) - 1 };
      }
    }
    throw new InternalError(`a reader default for column "${column.name}" of type ${column.type}, which the plan refused before`);
  }

  private number(op: number, v: number): { op: number; arg: number } {
    return { op, arg: this.numbers.push(v) - 1 };
  }

  private int64(v: number): { op: number; arg: number } {
    const pair = new Int32Array(2);
    setInt64Words(pair, 0, v);
    this.words.push(pair[0]!, pair[1]!);
    return { op: P.OP_CONST_WORDS, arg: this.words.length / 2 - 1 };
  }
}
