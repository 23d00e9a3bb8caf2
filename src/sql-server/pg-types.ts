import type * as arrow from "apache-arrow";
import { int64Text, readInt64, readNumbers } from "../batch/numeric-columns.js";
import { readValidity } from "../batch/validity.js";
import { assertNever } from "../expr/ast.js";
import { toJsonText, windowObject } from "../expr/eval-json.js";
import { asWin, vecOf, type StrVec } from "../expr/eval-vec.js";
import { headersJson } from "../expr/headers-json.js";
import { stringsOf } from "../kernels/columns.js";
import { encodeUtf8 } from "../kernels/utf8.js";
import type { DType, Field } from "../types/dtype.js";
import { byteaHex, float8Text, timestamptzText } from "./pg-text.js";

/**
 * Sluice's column types as Postgres types: the OID and size a RowDescription announces, and each
 * value's bytes in text format (as Postgres prints it) or binary format (as Postgres sends it).
 * Windows and Kafka headers, which Postgres has no type for, travel as json text, the same text
 * `to_json` gives them.
 */

export interface PgType {
  readonly oid: number;
  /** pg_type.typlen: bytes of a fixed-size value, -1 for variable length. */
  readonly size: number;
  readonly name: string;
}

/** The Postgres types Sluice's columns and parameters use, by Postgres's names. */
export const PG = {
  bool: { oid: 16, size: 1, name: "boolean" },
  bytea: { oid: 17, size: -1, name: "bytea" },
  int8: { oid: 20, size: 8, name: "bigint" },
  int2: { oid: 21, size: 2, name: "smallint" },
  int4: { oid: 23, size: 4, name: "integer" },
  text: { oid: 25, size: -1, name: "text" },
  json: { oid: 114, size: -1, name: "json" },
  float4: { oid: 700, size: 4, name: "real" },
  float8: { oid: 701, size: 8, name: "double precision" },
  unknown: { oid: 705, size: -2, name: "unknown" },
  varchar: { oid: 1043, size: -1, name: "character varying" },
  date: { oid: 1082, size: 4, name: "date" },
  timestamp: { oid: 1114, size: 8, name: "timestamp without time zone" },
  timestamptz: { oid: 1184, size: 8, name: "timestamp with time zone" },
  numeric: { oid: 1700, size: -1, name: "numeric" },
} as const satisfies Record<string, PgType>;

export function pgTypeOf(type: DType): PgType {
  switch (type) {
    case "boolean":
      return PG.bool;
    case "int32":
      return PG.int4;
    case "int64":
      return PG.int8;
    case "float64":
      return PG.float8;
    case "string":
      return PG.text;
    case "binary":
      return PG.bytea;
    case "timestamp":
      return PG.timestamptz;
    case "window":
    case "headers":
      return PG.json;
    default:
      return assertNever(type, "type");
  }
}

/** Row i's value of a column in the wire format asked for; null for SQL NULL. */
export type Cells = (i: number) => Uint8Array | null;

/** Microseconds between the Unix epoch and Postgres's epoch, 2000-01-01 00:00:00 UTC, in ms. */
const POSTGRES_EPOCH_MS = 946_684_800_000;

/** Encodes a column of `n` rows for DataRows: format 0 text, 1 binary. */
export function columnCells(data: arrow.Data, field: Field, n: number, format: 0 | 1): Cells {
  const valid = readValidity(data);
  const cells = (value: (i: number) => Uint8Array): Cells => (i) => (valid === null || valid[i] ? value(i) : null);
  const binary = format === 1;
  switch (field.type) {
    case "boolean": {
      const values = readNumbers(data);
      return cells((i) => (binary ? Uint8Array.of(values[i]!) : encodeUtf8(values[i] ? "t" : "f")));
    }
    case "int32": {
      const values = readNumbers(data, field.name);
      return cells((i) => (binary ? fixed(4, (v) => v.setInt32(0, values[i]!)) : encodeUtf8(String(values[i]))));
    }
    case "int64": {
      // Exact either way: through the words when some value lies beyond ±(2^53 - 1).
      const { values, words } = readInt64(data, field.name);
      if (binary) return cells((i) => fixed(8, (v) => (words ? (v.setInt32(0, words[2 * i + 1]!), v.setInt32(4, words[2 * i]!)) : v.setBigInt64(0, BigInt(values[i]!)))));
      return cells((i) => encodeUtf8(words ? int64Text(words[2 * i]!, words[2 * i + 1]!) : String(values[i])));
    }
    case "float64": {
      const values = readNumbers(data, field.name);
      return cells((i) => (binary ? fixed(8, (v) => v.setFloat64(0, values[i]!)) : encodeUtf8(float8Text(values[i]!))));
    }
    case "timestamp": {
      const values = readNumbers(data, field.name);
      // Binary timestamptz: int64 microseconds since 2000-01-01 UTC (beyond 2^53 for far dates: BigInt).
      return cells((i) => (binary ? fixed(8, (v) => v.setBigInt64(0, BigInt(values[i]! - POSTGRES_EPOCH_MS) * 1000n)) : encodeUtf8(timestamptzText(values[i]!))));
    }
    case "string": {
      const { offsets, bytes, indices } = stringsOf(data);
      return cells((i) => {
        const e = indices === null ? i : indices[i]!;
        return bytes.subarray(offsets[e]!, offsets[e + 1]!);
      });
    }
    case "binary": {
      const { offsets, bytes, indices } = stringsOf(data);
      return cells((i) => {
        const e = indices === null ? i : indices[i]!;
        const value = bytes.subarray(offsets[e]!, offsets[e + 1]!);
        return binary ? value : encodeUtf8(byteaHex(value));
      });
    }
    // json's binary format is its text.
    case "window":
      return textCells(toJsonText(windowObject(asWin(vecOf(data, "window", field.name))), n));
    case "headers":
      return textCells(headersJson(data, n));
    default:
      return assertNever(field.type, "type");
  }
}

function textCells(text: StrVec): Cells {
  const { offsets, bytes } = text.strings;
  return (i) => (text.valid === null || text.valid[i] ? bytes.subarray(offsets[i]!, offsets[i + 1]!) : null);
}

function fixed(size: number, write: (view: DataView) => void): Uint8Array {
  const out = new Uint8Array(size);
  write(new DataView(out.buffer));
  return out;
}
