import { makeBatch } from "../batch/batch.js";
import { readValidity } from "../batch/validity.js";
import { PreparationNeeded } from "../errors/errors.js";
import { avroWriterSchemaOf, encodeFormattedValues } from "../formats/value-encoding.js";
import { register, registeredId, type SchemaRegistration } from "../schema-registry/registered-ids.js";
import type { ColType, Fields } from "../types/dtype.js";
import { type ExprOf, unalias } from "./ast.js";
import type { CompileChild } from "./compile-nodes.js";
import { type Compiled, dataOf } from "./eval-vec.js";
import { encodedFields } from "./resolve.js";

/**
 * `to_avro` / `to_protobuf`: the encoded columns are gathered into a batch (passing columns through
 * as they are) and encoded column at a time by the format's encoder. With a schema registry, every
 * value carries the id the registry gave the schema; the id is asked for once per process (a worker
 * learns it through PreparationNeeded, the driver when its query starts).
 */
export function compileEncodeValues(e: ExprOf<"encodeValues">, type: ColType, fields: Fields, compile: CompileChild): Compiled {
  const columns = encodedFields(e, fields);
  const child = unalias(e.child);
  const lone = child.kind !== "struct";
  const parts = child.kind === "struct" ? child.fields.map(compile) : [compile(child)];
  const registration = registrationOf(e, columns);
  return {
    type,
    constant: null,
    run: (b) => {
      const data = parts.map((p, i) => p.passThrough?.(b) ?? dataOf(p.run(b), columns[i]!.type, b.numRows));
      const encoded = encodeFormattedValues(e.encoding, makeBatch(columns, data, b.numRows), registration === null ? undefined : idOf(registration));
      // A lone column's value is null where the column is, as Spark's to_avro of a null.
      return { kind: "str", strings: { offsets: encoded.valueOffsets, bytes: encoded.values, indices: null }, valid: lone ? readValidity(data[0]!) : null };
    },
  };
}

/** What to register for the node's registry, if it has one: the schema its values are written in. */
export function registrationOf(e: ExprOf<"encodeValues">, columns: Fields): SchemaRegistration | null {
  const target = e.registry;
  if (target === null) return null;
  if (e.encoding.kind === "avro") {
    return { registry: target.registry, subject: target.subject, schemaType: "AVRO", schema: JSON.stringify(avroWriterSchemaOf(e.encoding, columns)) };
  }
  return { registry: target.registry, subject: target.subject, schemaType: "PROTOBUF", schema: target.schema };
}

function idOf(registration: SchemaRegistration): number {
  const id = registeredId(registration);
  if (id !== undefined) return id;
  throw new PreparationNeeded(
    `to_${registration.schemaType === "AVRO" ? "avro" : "protobuf"}() needs the id of its schema under subject "${registration.subject}" from the schema registry, ` +
      "and asks for it when the query starts; this operator ran before it was known",
    () => register(registration),
  );
}
