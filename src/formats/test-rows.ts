import type { Batch } from "../batch/batch.js";
import { field, isValid, readNumbers, readString } from "../batch/batch.js";
import type { Field } from "../types/dtype.js";

/**
 * A batch as plain rows, for tests that state exact expected output: strings as strings,
 * float64 / int32 as numbers, int64 as bigint (exact beyond 2^53), booleans as booleans and
 * timestamps as ISO strings (exact to the millisecond and readable).
 */
export type PlainValue = string | number | bigint | boolean | null;

export function batchRows(batch: Batch): Record<string, PlainValue>[] {
  const columns = batch.fields.map((field, c) => {
    const data = batch.columns[c]!;
    const values: PlainValue[] = [];
    const numbers = field.type === "string" || field.type === "int64" ? null : readNumbers(data);
    for (let i = 0; i < batch.numRows; i++) {
      if (!isValid(data, i)) values.push(null);
      else if (field.type === "string") values.push(readString(data, i));
      else if (field.type === "int64") values.push((data.values as BigInt64Array)[i]!); // value buffers are already sliced
      else if (field.type === "boolean") values.push(numbers![i] === 1);
      else if (field.type === "timestamp") values.push(new Date(numbers![i]!).toISOString());
      else values.push(numbers![i]!);
    }
    return values;
  });
  return Array.from({ length: batch.numRows }, (_, i) => Object.fromEntries(batch.fields.map((f, c) => [f.name, columns[c]![i]!])));
}

/** One field of every scalar type the JSON decoders read, named by a letter. */
export const EVERY_TYPE: readonly Field[] = [
  field("s", "string"),
  field("f", "float64"),
  field("i", "int32"),
  field("l", "int64"),
  field("b", "boolean"),
  field("t", "timestamp"),
];

/** A small seeded generator of numbers in [0, 1), so a randomized test reproduces exactly. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state ^ (state >>> 15), 0x2c1b3c6d) + 0x9e3779b9) >>> 0;
    state = (state ^ (state >>> 12)) >>> 0;
    return state / 4294967296;
  };
}
