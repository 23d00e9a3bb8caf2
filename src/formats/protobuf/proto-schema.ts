import type * as pb from "protobufjs";
import { AnalysisError } from "../../errors/errors.js";
import { messageNamed } from "./proto-descriptor.js";
import type { ProtoMessage, ProtoSchema } from "./proto-descriptor.js";
import { schemaOf, typesIn } from "./protobufjs-convert.js";
import { loadProtobufjs, loadProtobufjsDescriptors } from "./protobufjs-loader.js";
import type { Protobufjs } from "./protobufjs-loader.js";

/**
 * Protobuf schemas from their two usual forms, as Spark's `from_protobuf` takes them: .proto text
 * (what a schema registry stores, with its references) and a serialized FileDescriptorSet
 * (`protoc --include_imports --descriptor_set_out`, Spark's `descFilePath`). protobufjs parses them;
 * it is loaded on the first call (protobufjs-loader.ts), hence the promises.
 *
 * Field names stay as declared (`ad_id`, not `adId`): they are the column names, as in Spark.
 */

export interface ProtoParseOptions {
  /**
   * The text of files the schema imports, by import path (a schema registry's references). The
   * well-known types (`google/protobuf/timestamp.proto` and the other google/protobuf files) need
   * not be given.
   */
  readonly imports?: Readonly<Record<string, string>>;
}

const KEEP_NAMES = { keepCase: true } as const;

/** The top-level messages of one .proto file, which may import others. */
export async function parseProtoSchema(text: string, options: ProtoParseOptions = {}): Promise<ProtoSchema> {
  const protobufjs = await loadProtobufjs();
  const root = new protobufjs.Root();
  const parsed = parseInto(protobufjs, root, text, "the Protobuf schema");
  // Taken before the imports join the root: only this file's messages count for message indexes.
  const own = typesIn(protobufjs, packageNamespace(root, parsed.package));
  addImports(protobufjs, root, parsed, options.imports ?? {}, new Set());
  resolve(root);
  return schemaOf(protobufjs, own);
}

/** The message named `messageName` (full, or simple when unique) of a .proto file. */
export async function parseProtoMessage(text: string, messageName: string, options: ProtoParseOptions = {}): Promise<ProtoMessage> {
  return messageNamed(await parseProtoSchema(text, options), messageName);
}

/**
 * The messages of a serialized FileDescriptorSet, every file's top-level ones. The well-known types
 * are added when the set does not carry them (a set written without `--include_imports`).
 */
export async function protoSchemaFromDescriptorSet(bytes: Uint8Array): Promise<ProtoSchema> {
  const protobufjs = await loadProtobufjsDescriptors();
  let root: pb.Root;
  try {
    root = protobufjs.Root.fromDescriptor(bytes, KEEP_NAMES);
  } catch (e) {
    throw new AnalysisError(`cannot read the FileDescriptorSet: ${(e as Error).message}`, { cause: e });
  }
  addMissingWellKnownTypes(protobufjs, root);
  resolve(root);
  return schemaOf(protobufjs, topLevelTypes(protobufjs, root));
}

function parseInto(protobufjs: Protobufjs, root: pb.Root, text: string, what: string): pb.IParserResult {
  try {
    return protobufjs.parse(text, root, KEEP_NAMES);
  } catch (e) {
    throw new AnalysisError(`cannot parse ${what}: ${(e as Error).message}`, { cause: e });
  }
}

function packageNamespace(root: pb.Root, packageName: string | undefined): pb.NamespaceBase {
  return packageName === undefined ? root : (root.lookup(packageName) as pb.Namespace);
}

function addImports(protobufjs: Protobufjs, root: pb.Root, parsed: pb.IParserResult, sources: Readonly<Record<string, string>>, done: Set<string>): void {
  for (const path of [...(parsed.imports ?? []), ...(parsed.weakImports ?? [])]) {
    if (done.has(path)) continue;
    done.add(path);
    const source = sources[path];
    if (source !== undefined) {
      addImports(protobufjs, root, parseInto(protobufjs, root, source, `imported file "${path}"`), sources, done);
      continue;
    }
    const wellKnown = protobufjs.common.get(path);
    if (wellKnown === null) {
      const given = Object.keys(sources);
      throw new AnalysisError(
        `the Protobuf schema imports "${path}", which is not a well-known type file (google/protobuf/...); pass its text in the imports option` +
          (given.length > 0 ? ` (given: ${given.join(", ")})` : ""),
      );
    }
    addJson(root, wellKnown);
  }
}

/** A well-known file's JSON: every one of them declares types in the package google.protobuf only. */
interface WellKnownJson {
  readonly nested?: { readonly google?: { readonly nested?: { readonly protobuf?: { readonly nested?: Record<string, pb.AnyNestedObject> } } } };
}

/** Adds a well-known file's types unless the root has them already (a descriptor set may carry them). */
function addJson(root: pb.Root, json: pb.INamespace): void {
  const types = (json as WellKnownJson).nested?.google?.nested?.protobuf?.nested ?? {};
  for (const [name, nested] of Object.entries(types)) {
    if (root.lookup(`.google.protobuf.${name}`) === null) root.define("google.protobuf").addJSON({ [name]: nested });
  }
}

const WELL_KNOWN_FILES = ["any", "duration", "timestamp", "empty", "struct", "wrappers", "field_mask"].map((f) => `google/protobuf/${f}.proto`);

function addMissingWellKnownTypes(protobufjs: Protobufjs, root: pb.Root): void {
  for (const file of WELL_KNOWN_FILES) {
    const json = protobufjs.common.get(file);
    if (json !== null) addJson(root, json);
  }
}

function resolve(root: pb.Root): void {
  try {
    root.resolveAll();
  } catch (e) {
    throw new AnalysisError(`cannot resolve the Protobuf schema: ${(e as Error).message}`, { cause: e });
  }
}

/** Message types at namespace level, under every package, depth first in declaration order. */
function topLevelTypes(protobufjs: Protobufjs, namespace: pb.NamespaceBase): pb.Type[] {
  const types: pb.Type[] = [];
  for (const nested of namespace.nestedArray) {
    if (nested instanceof protobufjs.Type) types.push(nested);
    else if (nested instanceof protobufjs.Namespace && !(nested instanceof protobufjs.Service)) types.push(...topLevelTypes(protobufjs, nested));
  }
  return types;
}
