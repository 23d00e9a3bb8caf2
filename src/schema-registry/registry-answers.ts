import { z } from "zod";

/**
 * The bodies of a Confluent-compatible registry's successful answers, read into Sluice's types. Fields a
 * registry leaves out are Confluent's defaults: no schemaType means AVRO, no references means none.
 */

export const SCHEMA_TYPES = ["AVRO", "PROTOBUF", "JSON"] as const;
export type SchemaType = (typeof SCHEMA_TYPES)[number];

/** Another subject's schema that a schema imports (a Protobuf import, an Avro named type, a JSON $ref). */
export interface SchemaReference {
  /** The name the schema refers to it by: an import path, a type's full name, a $ref URL. */
  readonly name: string;
  readonly subject: string;
  readonly version: number;
}

/** A schema as the registry holds it under an id. */
export interface RegisteredSchema {
  readonly schemaType: SchemaType;
  /** The schema's text: Avro JSON, a .proto file, a JSON schema. */
  readonly schema: string;
  readonly references: readonly SchemaReference[];
}

/** A version of a subject: the schema, its id, and its version number under the subject. */
export interface SubjectVersion extends RegisteredSchema {
  readonly subject: string;
  readonly version: number;
  readonly id: number;
}

export interface CompatibilityResult {
  readonly compatible: boolean;
  /** Why not, in the registry's words (empty when compatible, or when the registry gives no reason). */
  readonly messages: readonly string[];
}

const id = z.number().int().nonnegative();

const reference = z.object({ name: z.string(), subject: z.string(), version: z.number().int() });

const schemaBody = z.object({
  schema: z.string(),
  schemaType: z.enum(SCHEMA_TYPES).default("AVRO"),
  references: z.array(reference).nullish().transform((r) => r ?? []),
});

export const schemaAnswer = schemaBody.transform((b): RegisteredSchema => ({ schemaType: b.schemaType, schema: b.schema, references: b.references }));

export const subjectVersionAnswer = schemaBody
  .extend({ subject: z.string(), version: z.number().int(), id })
  .transform((b): SubjectVersion => ({ subject: b.subject, version: b.version, id: b.id, schemaType: b.schemaType, schema: b.schema, references: b.references }));

export const idAnswer = z.object({ id }).transform((b) => b.id);

/** Confluent answers `messages` (with verbose=true); Apicurio's ccompat API a `reason`. */
export const compatibilityAnswer = z
  .object({ is_compatible: z.boolean(), messages: z.array(z.string()).nullish(), reason: z.string().nullish() })
  .transform((b): CompatibilityResult => ({ compatible: b.is_compatible, messages: b.messages ?? (b.reason ? [b.reason] : []) }));

export const COMPATIBILITY_LEVELS = ["BACKWARD", "BACKWARD_TRANSITIVE", "FORWARD", "FORWARD_TRANSITIVE", "FULL", "FULL_TRANSITIVE", "NONE"] as const;
export type CompatibilityLevel = (typeof COMPATIBILITY_LEVELS)[number];

/** GET /config answers compatibilityLevel; PUT /config echoes compatibility. */
export const compatibilityLevelAnswer = z
  .object({ compatibilityLevel: z.enum(COMPATIBILITY_LEVELS).optional(), compatibility: z.enum(COMPATIBILITY_LEVELS).optional() })
  .refine((b) => (b.compatibilityLevel ?? b.compatibility) !== undefined, { message: "no compatibilityLevel" })
  .transform((b) => (b.compatibilityLevel ?? b.compatibility)!);
