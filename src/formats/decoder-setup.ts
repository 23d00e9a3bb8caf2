import { AnalysisError } from "../errors/errors.js";
import type { Fields } from "../types/dtype.js";
import { ColumnAccumulators } from "./column-accumulators.js";
import { JsonRecordDecoder } from "./json-record-decoder.js";
import type { Framing } from "./json-scanner.js";

/** What each entry point (`json-lines.ts`, `json-values.ts`) decodes records with. */
export interface DecoderSetup {
  readonly columns: ColumnAccumulators;
  readonly decoder: JsonRecordDecoder;
  /** Index of the corrupt-record column in the fields, or -1 when there is none. */
  readonly corruptField: number;
}

/**
 * Checks `fields` (distinct names; a corrupt-record column, when present, is a nullable string,
 * as in Spark) and builds a decoder over `bytes` into columns with room for `expectedRows`.
 */
export function setUpDecoder(fields: Fields, columnNameOfCorruptRecord: string, expectedRows: number, bytes: Uint8Array, framing: Framing): DecoderSetup {
  const corruptField = corruptRecordField(fields, columnNameOfCorruptRecord);
  const decodedFields = fields.flatMap((_, i) => (i === corruptField ? [] : [i]));
  const columns = new ColumnAccumulators(fields, expectedRows);
  const decoder = new JsonRecordDecoder(fields, decodedFields, columns);
  decoder.reset(bytes, framing);
  return { columns, decoder, corruptField };
}

function corruptRecordField(fields: Fields, name: string): number {
  const names = new Set<string>();
  for (const f of fields) {
    if (names.has(f.name)) throw new AnalysisError(`the JSON schema names field "${f.name}" twice; field names must be distinct`);
    names.add(f.name);
  }
  const index = fields.findIndex((f) => f.name === name);
  if (index < 0) return -1;
  const f = fields[index]!;
  if (f.type !== "string" || !f.nullable) {
    throw new AnalysisError(
      `the corrupt-record column "${name}" must be a nullable string, but it is a ${f.nullable ? "" : "non-nullable "}${f.type}; change its type or set columnNameOfCorruptRecord to another name`,
    );
  }
  return index;
}
