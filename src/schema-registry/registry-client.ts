import type { z } from "zod";
import { InternalError } from "../errors/errors.js";
import {
  compatibilityAnswer,
  compatibilityLevelAnswer,
  idAnswer,
  schemaAnswer,
  subjectVersionAnswer,
  type CompatibilityLevel,
  type CompatibilityResult,
  type RegisteredSchema,
  type SchemaReference,
  type SchemaType,
  type SubjectVersion,
} from "./registry-answers.js";
import { refused, unreadableAnswer, type Asked, type RegistryCall } from "./registry-errors.js";
import { resolveSchemaRegistryOptions, type SchemaRegistryOptions } from "./registry-options.js";
import { RegistryTransport } from "./registry-transport.js";
import { SharedLookups } from "./shared-lookups.js";

/** Keys kept by each of a client's caches (Confluent's clients keep 1000 schemas per subject). */
const CACHE_CAPACITY = 10_000;

export interface SchemaOptions {
  /** The schemas this one imports, by subject and version. */
  readonly references?: readonly SchemaReference[];
  /**
   * Ask the registry to normalize the schema first (Confluent's `normalize` parameter), so that texts
   * differing only in layout or order of optional parts get one id.
   */
  readonly normalize?: boolean;
}

/**
 * A client of a Confluent-compatible schema registry (Confluent Schema Registry, Confluent Cloud,
 * Apicurio's ccompat API, Redpanda, Karapace): reads schemas by id and by subject, registers them,
 * checks compatibility. Errors are SchemaRegistryErrors that name the registry and the request.
 *
 * What never changes is cached for the client's life: the schema of an id (ids are immutable in a
 * registry), the id a subject gave a schema, the version a lookup found; concurrent asks for one of them
 * share one request. Keep one client per registry in a process, so that they are asked once. What can
 * change (a subject's latest version, its compatibility level) is asked for every time.
 */
export class SchemaRegistryClient {
  /** The registry's URL(s), as messages show them: without credentials. */
  readonly url: string;
  private readonly transport: RegistryTransport;
  private readonly schemas = new SharedLookups<number, RegisteredSchema>(CACHE_CAPACITY);
  private readonly registered = new SharedLookups<string, number>(CACHE_CAPACITY);
  private readonly lookedUp = new SharedLookups<string, SubjectVersion>(CACHE_CAPACITY);

  constructor(options: SchemaRegistryOptions) {
    const resolved = resolveSchemaRegistryOptions(options);
    this.transport = new RegistryTransport(resolved);
    this.url = resolved.urls.join(", ");
  }

  /** The schema with this id (GET /schemas/ids/{id}). */
  schemaById(id: number): Promise<RegisteredSchema> {
    checkWhole("schema id", id, 0);
    return this.schemas.get(id, () => this.call({ method: "GET", path: `/schemas/ids/${id}` }, { kind: "schema", id }, schemaAnswer));
  }

  /** The subject's latest version (GET /subjects/{subject}/versions/latest). */
  latest(subject: string): Promise<SubjectVersion> {
    return this.call({ method: "GET", path: `${subjectPath(subject)}/versions/latest` }, { kind: "version", subject, version: "latest" }, subjectVersionAnswer);
  }

  /** Version `n` of the subject (GET /subjects/{subject}/versions/{n}). */
  version(subject: string, n: number): Promise<SubjectVersion> {
    checkWhole("version", n, 1);
    return this.call({ method: "GET", path: `${subjectPath(subject)}/versions/${n}` }, { kind: "version", subject, version: n }, subjectVersionAnswer);
  }

  /**
   * Registers the schema under the subject, unless it is there already, and returns its id
   * (POST /subjects/{subject}/versions). A schema the subject's compatibility level refuses fails with
   * the registry's reason.
   */
  register(subject: string, schema: string, schemaType: SchemaType = "AVRO", options: SchemaOptions = {}): Promise<number> {
    return this.registered.get(schemaKey(subject, schema, schemaType, options), () =>
      this.call(
        { method: "POST", path: `${subjectPath(subject)}/versions${normalizeQuery(options)}`, body: schemaBody(schema, schemaType, options) },
        { kind: "register", subject },
        idAnswer,
      ),
    );
  }

  /** The version of the subject that holds this schema (POST /subjects/{subject}); fails when it holds none. */
  lookup(subject: string, schema: string, schemaType: SchemaType = "AVRO", options: SchemaOptions = {}): Promise<SubjectVersion> {
    return this.lookedUp.get(schemaKey(subject, schema, schemaType, options), () =>
      this.call(
        { method: "POST", path: `${subjectPath(subject)}${normalizeQuery(options)}`, body: schemaBody(schema, schemaType, options) },
        { kind: "lookup", subject },
        subjectVersionAnswer,
      ),
    );
  }

  /**
   * Whether the subject's compatibility level lets this schema follow a version of it (the latest by
   * default), and why not (POST /compatibility/subjects/{subject}/versions/{version}?verbose=true).
   */
  testCompatibility(
    subject: string,
    schema: string,
    schemaType: SchemaType = "AVRO",
    options: { readonly version?: number | "latest"; readonly references?: readonly SchemaReference[] } = {},
  ): Promise<CompatibilityResult> {
    const version = options.version ?? "latest";
    if (version !== "latest") checkWhole("version", version, 1);
    return this.call(
      { method: "POST", path: `/compatibility${subjectPath(subject)}/versions/${version}?verbose=true`, body: schemaBody(schema, schemaType, options) },
      { kind: "compatibility", subject, version },
      compatibilityAnswer,
    );
  }

  /** The subject's compatibility level, or the registry's global one where the subject has none (GET /config/{subject}). */
  compatibility(subject: string): Promise<CompatibilityLevel> {
    return this.call({ method: "GET", path: `/config/${encodeURIComponent(subject)}?defaultToGlobal=true` }, { kind: "config", subject }, compatibilityLevelAnswer);
  }

  /** Sets the subject's compatibility level (PUT /config/{subject}). */
  async setCompatibility(subject: string, level: CompatibilityLevel): Promise<void> {
    await this.call({ method: "PUT", path: `/config/${encodeURIComponent(subject)}`, body: { compatibility: level } }, { kind: "config", subject }, compatibilityLevelAnswer);
  }

  private async call<T extends z.ZodType>(call: RegistryCall, asked: Asked, answerSchema: T): Promise<z.output<T>> {
    const answer = await this.transport.send(call);
    if (answer.status < 200 || answer.status >= 300) throw refused(answer, call, asked, this.transport.options.auth);
    const parsed = answerSchema.safeParse(answer.json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw unreadableAnswer(answer, call, answer.json === undefined ? "not JSON" : `${issue.path.join(".") || "body"}: ${issue.message}`);
    }
    return parsed.data;
  }
}

function subjectPath(subject: string): string {
  if (subject === "") throw new InternalError("a schema registry subject is a non-empty name");
  return `/subjects/${encodeURIComponent(subject)}`;
}

function checkWhole(what: string, n: number, min: number): void {
  if (!Number.isSafeInteger(n) || n < min) throw new InternalError(`a schema registry ${what} is a whole number from ${min}, got ${n}`);
}

const normalizeQuery = (options: SchemaOptions) => (options.normalize ? "?normalize=true" : "");

/**
 * The body Confluent's clients send: schemaType only when it is not AVRO, references only when there are
 * some, so that registries older than Protobuf and JSON support (Confluent 5.4 and before) take it too.
 */
function schemaBody(schema: string, schemaType: SchemaType, options: { readonly references?: readonly SchemaReference[] }): Record<string, unknown> {
  const body: Record<string, unknown> = { schema };
  if (schemaType !== "AVRO") body.schemaType = schemaType;
  if (options.references?.length) body.references = options.references;
  return body;
}

function schemaKey(subject: string, schema: string, schemaType: SchemaType, options: SchemaOptions): string {
  return JSON.stringify([subject, schemaType, options.normalize === true, options.references ?? [], schema]);
}
