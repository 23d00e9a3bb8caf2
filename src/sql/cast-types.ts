import type { DType } from "../types/dtype.js";

/** Spark's type names CAST reads, and the Sluice type each is. */
export const CAST_TYPES: Readonly<Record<string, DType>> = {
  STRING: "string",
  VARCHAR: "string",
  INT: "int32",
  INTEGER: "int32",
  BIGINT: "int64",
  LONG: "int64",
  // Sluice has one floating-point type: FLOAT is read as DOUBLE.
  DOUBLE: "float64",
  FLOAT: "float64",
  REAL: "float64",
  BOOLEAN: "boolean",
  TIMESTAMP: "timestamp",
  BINARY: "binary",
};
