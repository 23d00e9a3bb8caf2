import { AnalysisError, SchemaRegistryError } from "../errors/errors.js";
import { parseAvroSchema } from "../formats/avro/avro-schema.js";
import type { AvroSchema } from "../formats/avro/avro-schema-types.js";
import type { ProtoSchema } from "../formats/protobuf/proto-descriptor.js";
import { parseProtoSchema } from "../formats/protobuf/proto-schema.js";
import type { WriterSchemasById } from "../formats/value-format.js";
import { WriterSchemasFrom } from "../formats/writer-schema-source.js";
import type { RegisteredSchema, SchemaReference } from "./registry-answers.js";
import { processRegistryClient } from "./process-clients.js";
import type { SchemaRegistryClient } from "./registry-client.js";
import type { SchemaRegistryOptions } from "./registry-options.js";
import { SharedLookups } from "./shared-lookups.js";

/**
 * The writer schemas of Confluent wire-format values, fetched from the registry by id and parsed once
 * per process (each worker thread has its own): what a decoder needs before it can read a batch whose
 * values name schema ids. An id the registry does not know (error 40403) is left out, so that its
 * records are malformed and follow the reader's bad-record mode; any other registry failure (down,
 * refused credentials) fails the fetch with the client's SchemaRegistryError, after its retries.
 */

export type WriterSchemaKind = "avro" | "protobuf";

type Parsed = AvroSchema | ProtoSchema;

/** Confluent's error code for "Schema not found". */
const SCHEMA_NOT_FOUND = 40403;
/** Parsed schemas kept per registry: a process reads few (those of its topics). */
const PARSED_CAPACITY = 1000;

export class WriterSchemaFetcher {
  private readonly parsed = new SharedLookups<string, Parsed | undefined>(PARSED_CAPACITY);
  /** What has been fetched, for the synchronous look of `known`. */
  private readonly ready = new Map<string, Parsed | undefined>();

  constructor(readonly client: SchemaRegistryClient) {}

  /**
   * The writer schemas of `ids`, fetched and parsed as `kind`; ids the registry does not have are left
   * out, and a decoder's message for their records names the registry.
   */
  async fetch(kind: WriterSchemaKind, ids: readonly number[]): Promise<WriterSchemasById> {
    const parsed = await Promise.all(ids.map((id) => this.parsed.get(key(kind, id), () => this.fetchOne(kind, id))));
    ids.forEach((id, i) => this.ready.set(key(kind, id), parsed[i]));
    return this.schemasOf(ids.flatMap((id, i) => (parsed[i] === undefined ? [] : [[id, parsed[i]!] as const])));
  }

  /** The writer schemas of `ids` when every one has been fetched already; undefined when one has not. */
  known(kind: WriterSchemaKind, ids: readonly number[]): WriterSchemasById | undefined {
    const out: (readonly [number, Parsed])[] = [];
    for (const id of ids) {
      const k = key(kind, id);
      if (!this.ready.has(k)) return undefined;
      const schema = this.ready.get(k);
      if (schema !== undefined) out.push([id, schema]);
    }
    return this.schemasOf(out);
  }

  private schemasOf(entries: Iterable<readonly [number, Parsed]>): WriterSchemasById {
    return new WriterSchemasFrom(entries, `the schema registry at ${this.client.url}`);
  }

  private async fetchOne(kind: WriterSchemaKind, id: number): Promise<Parsed | undefined> {
    let registered: RegisteredSchema;
    try {
      registered = await this.client.schemaById(id);
    } catch (e) {
      if (e instanceof SchemaRegistryError && e.errorCode === SCHEMA_NOT_FOUND) return undefined;
      throw e;
    }
    const expected = kind === "avro" ? "AVRO" : "PROTOBUF";
    if (registered.schemaType !== expected) {
      throw new AnalysisError(
        `schema id ${id} in the registry at ${this.client.url} is a ${registered.schemaType} schema, but the values are read as ${kind === "avro" ? "Avro" : "Protobuf"}: ` +
          `read this topic with the format its producer writes`,
      );
    }
    if (kind === "protobuf") return parseProtoSchema(registered.schema, { imports: await this.imports(registered.references, new Set()) });
    if (registered.references.length > 0) {
      throw new AnalysisError(
        `schema id ${id} in the registry at ${this.client.url} refers to other subjects' schemas (${registered.references.map((r) => r.subject).join(", ")}); ` +
          "Sluice reads Avro writer schemas that are self-contained: register the schema with its named types inlined",
      );
    }
    try {
      return parseAvroSchema(registered.schema);
    } catch (e) {
      throw new AnalysisError(`schema id ${id} in the registry at ${this.client.url} is not a schema Sluice can read: ${(e as Error).message}`, { cause: e });
    }
  }

  /** The texts of the files a Protobuf schema imports, by import path, fetched through its references (and theirs). */
  private async imports(references: readonly SchemaReference[], seen: Set<string>): Promise<Record<string, string>> {
    const out: Record<string, string> = {};
    for (const ref of references) {
      if (seen.has(ref.name)) continue;
      seen.add(ref.name);
      const version = await this.client.version(ref.subject, ref.version);
      out[ref.name] = version.schema;
      Object.assign(out, await this.imports(version.references, seen));
    }
    return out;
  }
}

const key = (kind: WriterSchemaKind, id: number) => `${kind}/${id}`;

const fetchers = new WeakMap<SchemaRegistryClient, WriterSchemaFetcher>();

/** The process's fetcher for this registry (URLs and credentials), over its shared client. */
export function writerSchemaFetcher(options: SchemaRegistryOptions): WriterSchemaFetcher {
  const client = processRegistryClient(options);
  let fetcher = fetchers.get(client);
  if (fetcher === undefined) {
    fetcher = new WriterSchemaFetcher(client);
    fetchers.set(client, fetcher);
  }
  return fetcher;
}
