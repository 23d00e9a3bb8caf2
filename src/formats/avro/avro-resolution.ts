import { AnalysisError } from "../../errors/errors.js";
import type { Field, Fields } from "../../types/dtype.js";
import { columnTypeOfAvro } from "./avro-columns.js";
import { unionBranchOfDefault } from "./avro-defaults.js";
import * as P from "./avro-plan.js";
import type { AvroEnum, AvroField, AvroRecord, AvroSchema } from "./avro-schema-types.js";
import { aTypeLabel, simpleName, typeLabel } from "./avro-schema-types.js";
import { ConstantPool, enumTable, PER_MS, sameName } from "./avro-resolution-tables.js";
import { compileSkip } from "./avro-skip.js";

/**
 * Avro schema resolution (the specification's "Schema Resolution"), compiled into a decode plan
 * (avro-plan.ts): the writer's schema says what the bytes are, the reader's columns (and, when
 * given, the reader's own Avro schema, for defaults, aliases and enum symbols) say what to make of
 * them.
 *
 * - Writer fields are matched to columns by name, then by the aliases the reader schema gives the
 *   column's field. Writer fields no column reads are skipped, whatever their type.
 * - A column the writer lacks takes the reader schema field's default; else it is null when
 *   nullable; else the plan cannot be made (AnalysisError).
 * - Values resolve by the column's type (avro-columns.ts has the mapping), with the specification's
 *   promotions: int to long, float or double; long to float or double; float to double; string and
 *   bytes either way. Logical types only say how a value becomes a timestamp: timestamp-millis,
 *   -micros, -nanos and their local forms (a plain long is read as milliseconds, as Spark does;
 *   the reader schema's unit is used when the writer's long has none), date (days).
 * - A writer union resolves branch by branch: a branch the column cannot read (or null in a column
 *   that is not nullable) makes only the records that hold it bad, but a union none of whose
 *   branches reads is refused up front.
 * - A writer enum read into a string column gives its symbol; with a reader enum, a symbol the
 *   reader lacks becomes the reader's default, or makes the record bad when it has none.
 * - With a reader schema, records (at the top) and enums must have the same unqualified name or a
 *   reader alias of it, and fixed types the same size, as the specification requires.
 * A writer schema that is not a record is read into the one column the reader then must have.
 */
export function compileDecodePlan(writer: AvroSchema, fields: Fields, readerSchema: AvroSchema | null): P.DecodePlan {
  return new PlanBuilder(fields, readerSchema).build(writer);
}

/** Compiled plans by writer schema, reader schema (or none) and columns: a stream reuses a handful of them. */
const cache = new WeakMap<AvroSchema, WeakMap<object, Map<string, P.DecodePlan>>>();
const NO_READER_SCHEMA = {};

export function decodePlanFor(writer: AvroSchema, fields: Fields, readerSchema: AvroSchema | null): P.DecodePlan {
  let byReader = cache.get(writer);
  if (byReader === undefined) cache.set(writer, (byReader = new WeakMap()));
  const readerKey = readerSchema ?? NO_READER_SCHEMA;
  let byFields = byReader.get(readerKey);
  if (byFields === undefined) byReader.set(readerKey, (byFields = new Map()));
  const key = fields.map((f) => `${f.name.length}:${f.name}:${f.type}:${f.nullable ? 1 : 0}`).join(",");
  let plan = byFields.get(key);
  if (plan === undefined) byFields.set(key, (plan = compileDecodePlan(writer, fields, readerSchema)));
  return plan;
}

/** What each column type reads, for messages. */
const READS: Readonly<Record<string, string>> = {
  int32: "an Avro int",
  int64: "an Avro int or long",
  float64: "an Avro int, long, float or double",
  boolean: "an Avro boolean",
  string: "an Avro string, bytes or enum",
  binary: "Avro bytes, string or fixed",
  timestamp: "an Avro long (timestamp-millis, -micros, -nanos, their local- forms, or plain milliseconds) or an int with the date logical type",
};

/** The column kinds Sluice would need for compound Avro values. */
const COMPOUND_COLUMNS: Readonly<Record<string, string>> = { record: "struct", array: "list", map: "map" };

type Op = { readonly op: number; readonly arg: number };

class PlanBuilder {
  private readonly ops: number[] = [];
  private readonly columns: number[] = [];
  private readonly args: number[] = [];
  private readonly names: string[] = [];
  private readonly unions: P.UnionTable[] = [];
  private readonly enums: P.EnumTable[] = [];
  private readonly skippers: P.Skipper[] = [];
  private readonly refusals: string[] = [];
  private readonly constants = new ConstantPool();

  constructor(
    private readonly fields: Fields,
    private readonly readerSchema: AvroSchema | null,
  ) {
    const names = new Set<string>();
    for (const f of fields) {
      if (names.has(f.name)) throw new AnalysisError(`the Avro columns name "${f.name}" twice; column names must be distinct`);
      names.add(f.name);
      if (!Object.hasOwn(READS, f.type)) throw new AnalysisError(`column "${f.name}" has type ${f.type}, which cannot be read from Avro; declare it as one of ${Object.keys(READS).join(", ")}`);
    }
    if (readerSchema !== null && readerSchema.type !== "record" && fields.length !== 1) {
      throw new AnalysisError(`the reader's Avro schema is ${aTypeLabel(readerSchema)}, not a record: it reads into exactly one column, not ${fields.length}`);
    }
  }

  build(writer: AvroSchema): P.DecodePlan {
    if (writer.type === "record") this.record(writer);
    else {
      if (this.fields.length !== 1) {
        throw new AnalysisError(`the writer's Avro schema is ${aTypeLabel(writer)}, not a record: read it into exactly one column, not ${this.fields.length}`);
      }
      const column = this.fields[0]!;
      this.step(this.readOp(writer, 0, this.readerSchema === null ? null : this.readerSchema, column.name), 0, column.name);
    }
    return {
      ops: Int32Array.from(this.ops),
      columns: Int32Array.from(this.columns),
      args: Int32Array.from(this.args),
      names: this.names,
      unions: this.unions,
      enums: this.enums,
      skippers: this.skippers,
      refusals: this.refusals,
      constNumbers: Float64Array.from(this.constants.numbers),
      constWords: Int32Array.from(this.constants.words),
      constBytes: this.constants.bytes,
    };
  }

  private record(writer: AvroRecord): void {
    const reader = this.readerSchema?.type === "record" ? this.readerSchema : null;
    if (reader !== null && !sameName(writer.name, reader)) {
      throw new AnalysisError(
        `the writer's record ${writer.name} and the reader's record ${reader.name} have different names, which Avro resolution refuses; add "${simpleName(writer.name)}" to the reader record's aliases`,
      );
    }
    const readerFields = this.fields.map((f) => this.readerField(reader, f));
    const columnOf = matchFields(writer, this.fields, readerFields);
    writer.fields.forEach((w, i) => {
      const c = columnOf[i]!;
      if (c < 0) this.skip(w.type, w.name);
      else this.step(this.readOp(w.type, c, readerFields[c]?.type ?? null, w.name), c, w.name);
    });
    this.fields.forEach((f, c) => {
      if (!columnOf.includes(c)) this.fill(c, readerFields[c] ?? null, writer);
    });
  }

  /** The reader schema's field for a column, checked to read as the column's type. */
  private readerField(reader: AvroRecord | null, column: Field): AvroField | null {
    const field = reader?.fields.find((f) => f.name === column.name) ?? null;
    if (field === null) return null;
    const declared = columnTypeOfAvro(field.type, field.name);
    if (declared.type !== column.type) {
      throw new AnalysisError(`column "${column.name}" is ${column.type}, but the reader's Avro schema declares it ${aTypeLabel(field.type)}, which reads as ${declared.type}`);
    }
    return field;
  }

  private step(op: Op, column: number, name: string): void {
    this.ops.push(op.op);
    this.columns.push(column);
    this.args.push(op.arg);
    this.names.push(name);
  }

  private skip(type: AvroSchema, name: string): void {
    const plan = compileSkip(type);
    if (plan.size === 0) return;
    if (plan.size > 0) this.step({ op: P.OP_SKIP_FIXED, arg: plan.size }, -1, name);
    else if (type.type === "int" || type.type === "long") this.step({ op: P.OP_SKIP_VARINT, arg: 0 }, -1, name);
    else if (type.type === "string" || type.type === "bytes") this.step({ op: P.OP_SKIP_BYTES, arg: 0 }, -1, name);
    else this.step({ op: P.OP_SKIP_WITH, arg: this.skippers.push(plan.skip) - 1 }, -1, name);
  }

  private readOp(writer: AvroSchema, c: number, readerType: AvroSchema | null, name: string): Op {
    const column = this.fields[c]!;
    const reader = readerType === null ? null : nonNull(readerType);
    if (writer.type !== "union") {
      const op = this.valueOp(writer, column, reader);
      if (typeof op === "string") throw new AnalysisError(`column "${column.name}" (${column.type}) cannot read the writer's field "${name}": ${op}`);
      return op;
    }
    const ops = new Int32Array(writer.branches.length);
    const args = new Int32Array(writer.branches.length);
    const reasons: string[] = [];
    writer.branches.forEach((b, i) => {
      if (b.type === "null") {
        ops[i] = column.nullable ? P.OP_NULL : P.OP_NULL_REFUSED;
        return;
      }
      const op = this.valueOp(b, column, reader);
      if (typeof op !== "string") {
        ops[i] = op.op;
        args[i] = op.arg;
        return;
      }
      reasons.push(op);
      ops[i] = P.OP_BRANCH_REFUSED;
      args[i] = this.refusals.push(`field ${JSON.stringify(name)} holds branch ${i} (${typeLabel(b)}) of its union, which column "${column.name}" (${column.type}) cannot read`) - 1;
    });
    const readable = writer.branches.some((b, i) => b.type !== "null" && ops[i] !== P.OP_BRANCH_REFUSED);
    if (!readable && reasons.length > 0) {
      throw new AnalysisError(`column "${column.name}" (${column.type}) cannot read any branch of the writer's field "${name}", ${aTypeLabel(writer)}: ${column.type} reads ${READS[column.type]}`);
    }
    return { op: P.OP_UNION, arg: this.unions.push({ ops, args }) - 1 };
  }

  /** How a column reads a writer value that is not a union, or why it cannot. */
  private valueOp(writer: AvroSchema, column: Field, reader: AvroSchema | null): Op | string {
    const op = (code: number, arg = 0): Op => ({ op: code, arg });
    const w = writer.type;
    const compound = COMPOUND_COLUMNS[w];
    if (compound !== undefined) return `${aTypeLabel(writer)}, and Sluice has no ${compound} columns yet: leave the column out, and the field is skipped`;
    switch (column.type) {
      case "int32":
        if (w === "int") return op(P.OP_INT_INT32);
        if (w === "long") return `a long, and Avro does not narrow a long to an int: declare the column as int64`;
        break;
      case "int64":
        if (w === "int") return op(P.OP_INT_INT64);
        if (w === "long") return op(P.OP_LONG_INT64);
        break;
      case "float64":
        if (w === "int") return op(P.OP_INT_FLOAT64);
        if (w === "long") return op(P.OP_LONG_FLOAT64);
        if (w === "float") return op(P.OP_FLOAT_FLOAT64);
        if (w === "double") return op(P.OP_DOUBLE_FLOAT64);
        break;
      case "boolean":
        if (w === "boolean") return op(P.OP_BOOLEAN);
        break;
      case "string":
        if (w === "string" || w === "bytes") return op(P.OP_BYTES);
        if (w === "enum") return op(P.OP_ENUM, this.enums.push(enumTable(writer as AvroEnum, reader)) - 1);
        break;
      case "binary":
        if (w === "string" || w === "bytes") return op(P.OP_BYTES);
        if (w === "fixed") {
          if (reader?.type === "fixed" && reader.size !== writer.size) return `a fixed of ${writer.size} bytes, but the reader's fixed ${reader.name} has ${reader.size}`;
          return op(P.OP_FIXED, writer.size);
        }
        break;
      case "timestamp": {
        if (w === "int" && writer.logicalType?.name === "date") return op(P.OP_DATE_TIMESTAMP);
        if (w !== "long") break;
        const unit = writer.logicalType?.name ?? (reader?.type === "long" ? reader.logicalType?.name : undefined);
        if (unit === undefined) return op(P.OP_LONG_TIMESTAMP, 1);
        const perMs = PER_MS[unit];
        if (perMs === undefined) return `${aTypeLabel(writer)}, a time of day rather than an instant: declare the column as int64`;
        return op(P.OP_LONG_TIMESTAMP, perMs);
      }
    }
    return `${aTypeLabel(writer)}, and ${column.type} reads ${READS[column.type]}`;
  }

  /** A column the writer lacks: the reader's default, else null, else it cannot be read. */
  private fill(c: number, readerField: AvroField | null, writer: AvroRecord): void {
    const column = this.fields[c]!;
    if (readerField?.default != null) {
      const value = readerField.default.value;
      const type = readerField.type.type === "union" ? readerField.type.branches[unionBranchOfDefault(readerField.type.branches, value)]! : readerField.type;
      if (type.type !== "null") this.step(this.constants.constant(column, type, value), c, column.name);
      return;
    }
    if (column.nullable) return;
    throw new AnalysisError(
      `column "${column.name}" is not nullable, but the writer's record ${writer.name} has no field "${column.name}"${readerField?.aliases.length ? ` (nor ${readerField.aliases.map((a) => `"${a}"`).join(", ")})` : ""} ` +
        "and the reader's Avro schema gives it no default; make the column nullable or give the field a default",
    );
  }
}

/** Per writer field, the column reading it or -1: by name, then by the aliases of the columns' reader fields. */
function matchFields(writer: AvroRecord, columns: Fields, readerFields: readonly (AvroField | null)[]): number[] {
  const columnOf = writer.fields.map((w) => columns.findIndex((c) => c.name === w.name));
  columns.forEach((column, c) => {
    if (columnOf.includes(c)) return;
    for (const alias of readerFields[c]?.aliases ?? []) {
      const w = writer.fields.findIndex((f) => f.name === alias);
      if (w < 0) continue;
      if (columnOf[w]! >= 0) {
        throw new AnalysisError(`columns "${columns[columnOf[w]!]!.name}" and "${column.name}" would both read the writer's field "${alias}"; remove the alias from one of them`);
      }
      columnOf[w] = c;
      return;
    }
  });
  return columnOf;
}

/** The reader type a nullable union stands for ([null, T] -> T); other types as they are. */
function nonNull(type: AvroSchema): AvroSchema {
  if (type.type !== "union") return type;
  return type.branches.find((b) => b.type !== "null") ?? type;
}
