import { processRegistryClient } from "./process-clients.js";
import type { SchemaType } from "./registry-answers.js";
import type { SchemaRegistryOptions } from "./registry-options.js";

/**
 * The ids a registry gave the schemas this process writes (to_avro, to_protobuf), known synchronously
 * once asked for, so that an operator can stamp them on every value it encodes. Registering a schema a
 * subject holds already gives its id back, so asking again from another worker is harmless.
 */

/** A schema to write under a subject: registered (auto.register.schemas) or, without `schema`, the subject's latest version (use.latest.version). */
export interface SchemaRegistration {
  readonly registry: SchemaRegistryOptions;
  readonly subject: string;
  readonly schemaType: SchemaType;
  /** The schema's text; null to write with the id of the subject's latest version. */
  readonly schema: string | null;
}

const ids = new Map<string, number>();
const CAPACITY = 1000;

const keyOf = (r: SchemaRegistration) => JSON.stringify([r.registry["schema.registry.url"], r.subject, r.schemaType, r.schema]);

/** The id, when this process has registered (or looked up) the schema before; else undefined. */
export function registeredId(registration: SchemaRegistration): number | undefined {
  return ids.get(keyOf(registration));
}

/** Registers the schema under its subject (or finds the subject's latest version) and remembers the id. */
export async function register(registration: SchemaRegistration): Promise<number> {
  const client = processRegistryClient(registration.registry);
  const id =
    registration.schema === null
      ? (await client.latest(registration.subject)).id
      : await client.register(registration.subject, registration.schema, registration.schemaType);
  ids.set(keyOf(registration), id);
  if (ids.size > CAPACITY) ids.delete(ids.keys().next().value!);
  return id;
}
