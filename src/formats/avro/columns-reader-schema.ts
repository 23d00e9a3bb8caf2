import type { Fields } from "../../types/dtype.js";
import { avroSchemaOfFields } from "./avro-columns.js";
import { parseAvroSchema } from "./avro-schema.js";
import type { AvroSchema } from "./avro-schema-types.js";
import { simpleName } from "./avro-schema-types.js";

/**
 * The reader schema of columns read without an Avro schema of the user's: `avroSchemaOfFields(fields)`
 * (nullable columns default to null), named as the writers' records are. Avro resolution requires a
 * reader record to have the writer record's name or an alias of it; a reader that only says which
 * columns it wants has no name of its own to hold against the writer's, so it takes the first
 * writer's and lists the others' as aliases.
 *
 * The same schema object comes back for the same columns and writer names, so the decode plans
 * compiled against it (cached by reader schema) are reused from batch to batch.
 */
export function readerSchemaOfColumns(fields: Fields, writers: Iterable<AvroSchema>): AvroSchema {
  const names = [...new Set([...writers].flatMap((w) => (w.type === "record" ? [simpleName(w.name)] : [])))];
  const key = JSON.stringify([fields.map((f) => [f.name, f.type, f.nullable]), names]);
  let schema = made.get(key);
  if (schema === undefined) {
    const [name, ...aliases] = names;
    schema = parseAvroSchema({ ...avroSchemaOfFields(fields, name === undefined ? {} : { name }), aliases });
    made.set(key, schema);
    if (made.size > CAPACITY) made.delete(made.keys().next().value!);
  }
  return schema;
}

/** A process reads a handful of record schemas; the bound only matters for one that keeps meeting new ones. */
const CAPACITY = 64;
const made = new Map<string, AvroSchema>();
