import * as arrow from "apache-arrow";

/** Columns and constants for the numeric column specs. */

export const TWO_53 = 2n ** 53n;
export const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/** A column of `type` from plain values (null = null row), built by Arrow JS's own builder. */
export function arrowColumn<T extends arrow.DataType>(type: T, values: readonly unknown[]): arrow.Data<T> {
  return arrow.vectorFromArray(values as never[], type).data[0] as arrow.Data<T>;
}

/** A 64-bit column straight from bigints, with nulls where `valid` is 0 (the slot keeps its value). */
export function wideColumn<T extends arrow.DataType>(type: T, values: readonly bigint[], valid?: readonly number[]): arrow.Data<T> {
  const data = type.ArrayType === BigUint64Array ? BigUint64Array.from(values, (v) => BigInt.asUintN(64, v)) : BigInt64Array.from(values);
  const bitmap = valid === undefined ? undefined : Uint8Array.of(valid.reduce((bits, v, i) => bits | (v << i), 0));
  return arrow.makeData({ type, length: values.length, data, nullBitmap: bitmap } as never) as arrow.Data<T>;
}
