import { create } from "@bufbuild/protobuf";
import { type Relation, RelationSchema } from "../gen/spark/connect/relations_pb.js";
import type { ReadMode } from "../../formats/read-mode.js";
import type { Field, Fields } from "../../types/dtype.js";
import type { Expression } from "../gen/spark/connect/expressions_pb.js";
import { alias, cast, column, fn, structField } from "./compile-expression.js";
import { stringLiteral, typedLiteral } from "./spark-literals.js";
import { sparkDdl } from "./spark-types.js";

/**
 * JSON text decoded into columns as Sluice decodes it (formats/json-lines.ts), with Spark's
 * from_json doing the parsing. Spark's from_json alone differs in three ways, each made up here:
 * - it treats every field as nullable, where Sluice calls a record with a null or missing
 *   non-nullable field malformed;
 * - it reads a JSON number as seconds for a timestamp, where Sluice reads epoch milliseconds: a
 *   timestamp field is parsed as text, then a number is read as milliseconds and any other text
 *   cast to a timestamp (malformed when it is not one);
 * - a malformed record in PERMISSIVE mode keeps the fields that parsed, where Sluice gives all
 *   nulls and the record's text in the corrupt-record column.
 * So a first Project holds the parsed struct and the text, and the output Project (after a Filter
 * for DROPMALFORMED) lays out the fields: null, or an error (FAILFAST, raise_error), where a
 * record is malformed.
 */
export interface JsonDecode {
  /** Tells apart the helper columns of several decodes in one select. */
  readonly index: number;
  /** The JSON text over the input (a string or binary column, read as UTF-8). */
  readonly text: Expression;
  /** The output columns, the corrupt-record column among them where `corruptColumn` names one. */
  readonly fields: Fields;
  readonly mode: ReadMode;
  readonly corruptColumn: string | null;
  /** How a FAILFAST error names what was read, e.g. `from_json(body)`. */
  readonly where: string;
}

const structName = (d: JsonDecode) => `__sluice_json_${d.index}`;
const textName = (d: JsonDecode) => `__sluice_text_${d.index}`;
/** The column of the parsed struct in which Spark puts the text of a record it could not parse. */
const PARSE_FAILURE = "__sluice_unparsed";

const valueFields = (d: JsonDecode) => d.fields.filter((f) => f.name !== d.corruptColumn);

/** The first Project's columns for a decode: the parsed struct and the text. */
export function jsonDecodeInputs(d: JsonDecode): Expression[] {
  const text = cast(d.text, "string");
  // Timestamps are parsed as text (see above); every field nullable, a record's problems judged below.
  const parsed: Field[] = [...valueFields(d).map((f) => ({ name: f.name, type: f.type === "timestamp" ? ("string" as const) : f.type, nullable: true })), { name: PARSE_FAILURE, type: "string", nullable: true }];
  const options = fn("map", [stringLiteral("mode"), stringLiteral("PERMISSIVE"), stringLiteral("columnNameOfCorruptRecord"), stringLiteral(PARSE_FAILURE)]);
  return [alias(fn("from_json", [text, stringLiteral(sparkDdl(parsed)), options]), structName(d)), alias(text, textName(d))];
}

/** A field's value from the parsed struct: timestamps from their text, a number as epoch milliseconds. */
function fieldValue(d: JsonDecode, f: Field): Expression {
  const raw = structField(structName(d), f.name);
  if (f.type !== "timestamp") return raw;
  const isNumber = fn("rlike", [raw, stringLiteral("^-?[0-9]+(\\.[0-9]+)?([eE][-+]?[0-9]+)?$")]);
  const millis = fn("timestamp_millis", [cast(fn("floor", [cast(raw, "float64")]), "int64")]);
  return fn("when", [isNumber, millis, cast(raw, "timestamp")]);
}

const or = (xs: Expression[]): Expression => xs.reduce((a, b) => fn("or", [a, b]));

/** True where the record is malformed for Sluice; null text (a null value) is not a record. */
export function jsonMalformed(d: JsonDecode): Expression {
  const problems = [
    fn("isnull", [column(structName(d))]),
    fn("isnotnull", [structField(structName(d), PARSE_FAILURE)]),
    ...valueFields(d).flatMap((f) => [
      ...(f.nullable ? [] : [fn("isnull", [structField(structName(d), f.name)])]),
      ...(f.type === "timestamp" ? [fn("and", [fn("isnotnull", [structField(structName(d), f.name)]), fn("isnull", [fieldValue(d, f)])])] : []),
    ]),
  ];
  return fn("and", [fn("isnotnull", [column(textName(d))]), or(problems)]);
}

/** The output columns of a decode, over the first Project (filtered for DROPMALFORMED). */
export function jsonDecodeOutputs(d: JsonDecode): Expression[] {
  const malformed = jsonMalformed(d);
  const failAt = d.fields.findIndex((f) => f.name !== d.corruptColumn);
  return d.fields.map((f, i) => {
    if (f.name === d.corruptColumn) return alias(fn("when", [malformed, column(textName(d))]), f.name);
    const value = fieldValue(d, f);
    if (d.mode === "FAILFAST" && i === failAt) {
      const message = `Malformed records are detected in record parsing of ${d.where}. Parse Mode: FAILFAST.`;
      return alias(fn("when", [malformed, cast(fn("raise_error", [stringLiteral(message)]), f.type), value]), f.name);
    }
    return alias(d.mode === "PERMISSIVE" ? fn("when", [malformed, typedLiteral(null, f.type), value]) : value, f.name);
  });
}

/**
 * The relations of a decode: the first Project (`first`: the helper columns of `decodes` among
 * others), a Filter dropping malformed records for DROPMALFORMED, and the output Project (`last`).
 * `wrap` gives each relation its plan id.
 */
export function decodeJsonRelations(wrap: (r: Relation) => Relation, input: Relation, first: Expression[], decodes: readonly JsonDecode[], last: Expression[]): Relation {
  let r = wrap(create(RelationSchema, { relType: { case: "project", value: { input, expressions: first } } }));
  const dropping = decodes.filter((d) => d.mode === "DROPMALFORMED");
  if (dropping.length > 0) r = wrap(create(RelationSchema, { relType: { case: "filter", value: { input: r, condition: fn("not", [or(dropping.map(jsonMalformed))]) } } }));
  return wrap(create(RelationSchema, { relType: { case: "project", value: { input: r, expressions: last } } }));
}
