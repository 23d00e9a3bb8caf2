import { AnalysisError } from "../../errors/errors.js";
import { decodeFormattedValues, type ValueFormat } from "../../formats/value-format.js";
import type { Fields } from "../../types/dtype.js";

const NO_VALUES = { bytes: new Uint8Array(0), offsets: new Int32Array(1), validity: null };

/**
 * Checks that the record schema's columns can be read from values of `format`, so that a wrong
 * declaration fails when the query is defined (or, for Protobuf, whose schema is parsed
 * asynchronously, when it starts) rather than on its first record. The decoders' own checks do it,
 * run on no values: each column names a field of the schema and has the type that field reads as,
 * the corrupt-record column is a nullable binary one (Protobuf). Values in the Confluent wire format
 * are checked against the reader schema, as the writer schemas come with the records. The
 * AnalysisError keeps the decoder's words, which name the column, after `where`.
 *
 * (value-format.ts's checkValueFormat, for the from_avro / from_protobuf functions, has no
 * corrupt-record column, which a source's record schema may hold, and leaves Confluent-framed Avro
 * to the first batch, whose writer schemas a function cannot know sooner.)
 */
export function checkReadableColumns(format: ValueFormat, fields: Fields, columnNameOfCorruptRecord: string | undefined, where: string): void {
  const checked: ValueFormat =
    format.kind === "avro" ? { ...format, writerSchema: format.writerSchema ?? format.readerSchema } : format.kind === "protobuf" ? { ...format, confluent: false } : format;
  try {
    decodeFormattedValues(checked, NO_VALUES, fields, { mode: "FAILFAST", describeRecord: (i) => `record ${i}`, columnNameOfCorruptRecord });
  } catch (e) {
    if (e instanceof AnalysisError) throw new AnalysisError(`${where}: ${e.message}`, { cause: e });
    throw e;
  }
}
