/**
 * Writer schemas by registry id, as the Avro and Protobuf decoders take them, and how a decoder says
 * that a record names an id they lack. A caller that fetched them from somewhere (a schema registry)
 * passes them as `WriterSchemasFrom`, so that the message names that place: "schema id 9 is not in
 * the schema registry at http://...", which tells the user where to look, rather than the bare
 * "not among the writer schemas given".
 */
export class WriterSchemasFrom<S> extends Map<number, S> {
  constructor(
    schemas: Iterable<readonly [number, S]>,
    /** Where the schemas come from, as a message ends "schema id 9 is not in ...": "the schema registry at http://...". */
    readonly source: string,
  ) {
    super(schemas);
  }
}

/** Why a record whose writer schema id is `id` cannot be decoded with `schemas`, which lack it. */
export function missingWriterSchema(schemas: ReadonlyMap<number, unknown>, id: number): string {
  if (schemas instanceof WriterSchemasFrom) return `schema id ${id} is not in ${schemas.source}`;
  const given = [...schemas.keys()].sort((a, b) => a - b);
  return `schema id ${id} is not among the writer schemas given (${given.length > 0 ? `ids ${given.join(", ")}` : "none"})`;
}
