import { InternalError, MalformedRecordError } from "../../errors/errors.js";
import { byteCode, schemaProblem, syntaxProblem, type RecordProblem } from "../record-problem.js";
import {
  FAULT_BOOLEAN,
  FAULT_ENUM_INDEX,
  FAULT_LONG_VARINT,
  FAULT_NEGATIVE_LENGTH,
  FAULT_TRUNCATED,
  FAULT_TRUNCATED_VARINT,
  FAULT_UNION_INDEX,
  type AvroReader,
} from "./avro-reader.js";

/**
 * The words of Avro record problems. Error path only. `syntax` problems are bytes that are not
 * Avro of the writer's schema at all; `schema` problems are values the reader's columns cannot
 * hold (a null in a column that is not nullable, a symbol the reader's enum lacks).
 */

/** The problem the reader's last fault describes, while reading the writer's field `field`. */
export function faultProblem(reader: AvroReader, field: string): RecordProblem {
  const name = JSON.stringify(field);
  const value = reader.faultValue;
  switch (reader.fault) {
    case FAULT_TRUNCATED:
      return syntaxProblem(`truncated: field ${name} needs ${value} more byte${value === 1 ? "" : "s"}`);
    case FAULT_TRUNCATED_VARINT:
      return syntaxProblem(`truncated: the record ends inside a varint of field ${name}`);
    case FAULT_LONG_VARINT:
      return syntaxProblem(`field ${name} has a varint longer than ${value} bytes`);
    case FAULT_NEGATIVE_LENGTH:
      return syntaxProblem(`field ${name} has a negative length (${value})`);
    case FAULT_UNION_INDEX:
      return syntaxProblem(`bad union index ${value} for field ${name} (its union has ${reader.faultLimit} branches)`);
    case FAULT_ENUM_INDEX:
      return syntaxProblem(`bad enum index ${value} for field ${name} (its enum has ${reader.faultLimit} symbols)`);
    case FAULT_BOOLEAN:
      return syntaxProblem(`field ${name} has the boolean ${byteCode(value)}, where Avro writes 0 or 1`);
    default:
      throw new InternalError(`unknown Avro reader fault ${reader.fault}`);
  }
}

export function trailingBytesProblem(count: number): RecordProblem {
  return syntaxProblem(`record has ${count} byte${count === 1 ? "" : "s"} after its last field`);
}

export function nullProblem(field: string): RecordProblem {
  return schemaProblem(`field ${JSON.stringify(field)} is not nullable, got null`);
}

export function timestampRangeProblem(field: string, ms: number): RecordProblem {
  return schemaProblem(`field ${JSON.stringify(field)} holds ${ms} ms since the epoch, outside the ±8.64e15 ms that Sluice timestamps cover`);
}

export function dateRangeProblem(field: string, days: number): RecordProblem {
  return schemaProblem(`field ${JSON.stringify(field)} holds the date ${days} days from the epoch, outside the ±100,000,000 days that Sluice timestamps cover`);
}

export function unknownSymbolProblem(field: string, symbol: string, readerEnum: string): RecordProblem {
  return schemaProblem(`field ${JSON.stringify(field)} has the symbol ${JSON.stringify(symbol)}, which the reader's ${readerEnum} lacks, and it has no default`);
}

/** The FAILFAST error for a record: where it is (such as "topic t partition 0 offset 42"), then what was wrong. */
export function malformedAvroError(problem: RecordProblem, where: string): MalformedRecordError {
  const what = problem.kind === "syntax" ? "malformed Avro" : "record does not match the schema";
  return new MalformedRecordError(`${what} at ${where}: ${problem.detail}`, undefined, undefined);
}
