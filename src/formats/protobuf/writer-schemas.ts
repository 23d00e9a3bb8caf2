import { AnalysisError } from "../../errors/errors.js";
import { schemaProblem } from "../record-problem.js";
import type { RecordProblem } from "../record-problem.js";
import { missingWriterSchema } from "../writer-schema-source.js";
import { describeField, messageAt } from "./proto-descriptor.js";
import type { ProtoField, ProtoFieldType, ProtoMessage, ProtoSchema } from "./proto-descriptor.js";

/**
 * Checks the writer schema of a Confluent-framed record against the reader's message. Protobuf
 * reads a field by its number, whatever the writer called it, so a record is always decoded with
 * the reader's types; what a writer schema can tell is whether that is sound:
 * - the message the record's indexes name must be the reader's message (same full name): a topic
 *   may carry several message types (RecordNameStrategy), and another type's record is a bad
 *   record here, not data;
 * - a field number both declare must have types Protobuf documents as wire compatible (int32,
 *   uint32, int64, uint64, bool and enum; sint32 and sint64; fixed32 and sfixed32; fixed64 and
 *   sfixed64; string and bytes), and both repeated or neither. Otherwise the writer changed a
 *   field incompatibly, and every record of that schema would decode to nonsense: AnalysisError.
 * Fields added on either side are fine: a field the writer lacks reads as absent, one the reader
 * lacks is skipped. Each (schema id, message indexes) is checked once.
 */

const COMPATIBLE: readonly (readonly ProtoFieldType[])[] = [
  ["int32", "int64", "uint32", "uint64", "bool", "enum"],
  ["sint32", "sint64"],
  ["fixed32", "sfixed32"],
  ["fixed64", "sfixed64"],
  ["string", "bytes"],
];

function compatible(reader: ProtoField, writer: ProtoField): boolean {
  if ((reader.label === "repeated") !== (writer.label === "repeated") || reader.map !== writer.map) return false;
  if (reader.type === writer.type) return (reader.type !== "message" && reader.type !== "group") || reader.typeName === writer.typeName;
  return COMPATIBLE.some((family) => family.includes(reader.type) && family.includes(writer.type));
}

function typeText(field: ProtoField): string {
  const type = field.type === "message" || field.type === "group" || field.type === "enum" ? (field.typeName ?? field.type) : field.type;
  return field.label === "repeated" ? `repeated ${type}` : type;
}

export class WriterSchemas {
  /** The outcome per "id/indexes": null when sound, else the record problem. */
  private readonly checked = new Map<string, RecordProblem | null>();

  constructor(
    private readonly reader: ProtoMessage,
    /** The reader's fields that columns read (or that it requires). */
    private readonly readFields: readonly ProtoField[],
    private readonly schemas: ReadonlyMap<number, ProtoSchema>,
  ) {}

  /** Null when records of this writer schema and message indexes decode with the reader's message; else why not. */
  problemOf(schemaId: number, indexes: readonly number[]): RecordProblem | null {
    const key = indexes.length === 1 ? `${schemaId}/${indexes[0]}` : `${schemaId}/${indexes.join(".")}`;
    let outcome = this.checked.get(key);
    if (outcome === undefined) {
      outcome = this.check(schemaId, indexes);
      this.checked.set(key, outcome);
    }
    return outcome;
  }

  private check(schemaId: number, indexes: readonly number[]): RecordProblem | null {
    const schema = this.schemas.get(schemaId);
    if (schema === undefined) return schemaProblem(missingWriterSchema(this.schemas, schemaId));
    const writer = messageAt(schema, indexes);
    const where = `schema id ${schemaId} message index [${indexes.join(", ")}]`;
    if (writer === undefined) return schemaProblem(`${where} names no message of that schema`);
    if (writer.fullName !== this.reader.fullName) return schemaProblem(`${where} is the message ${writer.fullName}, not the reader's ${this.reader.fullName}`);
    for (const field of this.readFields) {
      const written = writer.fields.find((f) => f.number === field.number);
      if (written === undefined || compatible(field, written)) continue;
      throw new AnalysisError(
        `writer ${where} (${writer.fullName}) declares ${describeField(written.number, written.name)} as ${typeText(written)}, which the reader's ` +
          `${describeField(field.number, field.name)}, ${typeText(field)}, cannot read: Protobuf reads fields by number, and these types differ on the wire. ` +
          "Read the records written with it under a reader schema that keeps the writer's type, or leave the field out of the columns",
      );
    }
    return null;
  }
}
