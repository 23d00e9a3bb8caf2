import { AnalysisError } from "../../errors/errors.js";
import { defaultProblem } from "./avro-defaults.js";
import { fixedLogicalType, primitiveLogicalType } from "./avro-logical-types.js";
import type { AvroEnum, AvroField, AvroFixed, AvroNamed, AvroPrimitive, AvroPrimitiveName, AvroRecord, AvroSchema } from "./avro-schema-types.js";
import { AVRO_PRIMITIVES, isNamed } from "./avro-schema-types.js";

/**
 * Parses an Avro schema, given as JSON text or as the JSON value itself, into the checked tree of
 * `avro-schema-types.ts`. Everything the specification requires is checked once, here, with a
 * message that says where in the schema the problem is: names ([A-Za-z_][A-Za-z0-9_]*, namespaces
 * of such names joined by dots), names defined twice or used before they are defined, primitive
 * names redefined, duplicate fields or symbols, unions inside unions or with two branches of one
 * kind, fixed sizes, enum defaults and field defaults (avro-defaults.ts). Unknown attributes are
 * metadata and ignored; unknown or invalid logical types leave the underlying type
 * (avro-logical-types.ts).
 *
 * Errors are AnalysisErrors: a schema that cannot be read makes the query unable to run.
 */
export function parseAvroSchema(schema: string | object): AvroSchema {
  let json: unknown = schema;
  if (typeof schema === "string") {
    try {
      json = JSON.parse(schema);
    } catch (e) {
      const hint = AVRO_PRIMITIVES.has(schema.trim()) ? `; a schema that is a type name is the JSON string ${JSON.stringify(schema.trim())}, with its quotes` : "";
      throw new AnalysisError(`invalid Avro schema: the text is not JSON (${(e as Error).message})${hint}`);
    }
  }
  return new SchemaParser().parse(json, "", "the top level");
}

/** One primitive node per type without a logical type: they are immutable and compare by identity cheaply. */
const PLAIN: Readonly<Record<AvroPrimitiveName, AvroPrimitive>> = Object.fromEntries(
  [...AVRO_PRIMITIVES].map((name) => [name, Object.freeze({ type: name as AvroPrimitiveName, logicalType: null })]),
) as Record<AvroPrimitiveName, AvroPrimitive>;

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const ORDERS: ReadonlySet<string> = new Set(["ascending", "descending", "ignore"]);

type JsonObject = Readonly<Record<string, unknown>>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function fail(where: string, problem: string): never {
  throw new AnalysisError(`invalid Avro schema at ${where}: ${problem}`);
}

class SchemaParser {
  /** Named types by full name, in the order they were defined. */
  private readonly named = new Map<string, AvroNamed>();

  parse(json: unknown, namespace: string, where: string): AvroSchema {
    if (typeof json === "string") return this.reference(json, namespace, where);
    if (Array.isArray(json)) return this.union(json, namespace, where);
    if (!isObject(json)) fail(where, `a schema is a type name, an object or an array (a union), not ${JSON.stringify(json)}`);
    const type = json.type;
    if (typeof type !== "string") fail(where, `the schema object's "type" must be a string, got ${JSON.stringify(type) ?? "nothing"}`);
    if (AVRO_PRIMITIVES.has(type)) {
      const logicalType = primitiveLogicalType(type as AvroPrimitiveName, json);
      return logicalType === null ? PLAIN[type as AvroPrimitiveName] : { type: type as AvroPrimitiveName, logicalType };
    }
    switch (type) {
      case "record":
        return this.record(json, namespace, where);
      case "enum":
        return this.enumType(json, namespace, where);
      case "fixed":
        return this.fixed(json, namespace, where);
      case "array":
        if (!("items" in json)) fail(where, 'an array needs "items"');
        return { type: "array", items: this.parse(json.items, namespace, `${where} (array items)`) };
      case "map":
        if (!("values" in json)) fail(where, 'a map needs "values"');
        return { type: "map", values: this.parse(json.values, namespace, `${where} (map values)`) };
      default:
        // {"type": "com.acme.Order"}: a reference to a defined type, written as an object.
        return this.reference(type, namespace, where);
    }
  }

  private reference(name: string, namespace: string, where: string): AvroSchema {
    if (AVRO_PRIMITIVES.has(name)) return PLAIN[name as AvroPrimitiveName];
    const found = (!name.includes(".") && namespace !== "" ? this.named.get(`${namespace}.${name}`) : undefined) ?? this.named.get(name);
    if (found !== undefined) return found;
    const known = [...this.named.keys()];
    fail(where, `unknown type ${JSON.stringify(name)} (a named type must be defined before it is used; defined so far: ${known.length === 0 ? "none" : known.join(", ")})`);
  }

  private union(json: readonly unknown[], namespace: string, where: string): AvroSchema {
    if (json.length === 0) fail(where, "a union needs at least one branch");
    const seen = new Map<string, number>();
    const branches = json.map((b, i) => {
      const branch = this.parse(b, namespace, `${where} (union branch ${i})`);
      if (branch.type === "union") fail(where, `union branch ${i} is itself a union; unions may not contain unions`);
      const key = isNamed(branch) ? branch.name : branch.type;
      const twin = seen.get(key);
      if (twin !== undefined) fail(where, `union branches ${twin} and ${i} are both ${key}; a union holds each type once (named types once per name)`);
      seen.set(key, i);
      return branch;
    });
    return { type: "union", branches };
  }

  /** The full name and namespace of a named type's definition, checked and not yet taken. */
  private define(json: JsonObject, enclosing: string, where: string, kind: string): { name: string; namespace: string; aliases: string[] } {
    const name = json.name;
    if (typeof name !== "string") fail(where, `a ${kind} needs a "name" string`);
    let namespace = enclosing;
    if (name.includes(".")) namespace = name.slice(0, name.lastIndexOf("."));
    else if (typeof json.namespace === "string") namespace = json.namespace;
    else if (json.namespace !== undefined && json.namespace !== null) fail(where, `the ${kind}'s "namespace" must be a string`);
    const simple = name.slice(name.lastIndexOf(".") + 1);
    if (!NAME.test(simple)) fail(where, `${JSON.stringify(simple)} is not a valid name ([A-Za-z_][A-Za-z0-9_]*)`);
    if (namespace !== "" && !namespace.split(".").every((part) => NAME.test(part))) {
      fail(where, `${JSON.stringify(namespace)} is not a valid namespace (names joined by dots)`);
    }
    if (AVRO_PRIMITIVES.has(simple)) fail(where, `${JSON.stringify(simple)} is a primitive type name and cannot name a ${kind}`);
    const fullName = namespace === "" ? simple : `${namespace}.${simple}`;
    if (this.named.has(fullName)) fail(where, `${fullName} is defined twice`);
    return { name: fullName, namespace, aliases: this.aliases(json, namespace, where, (a) => (a.includes(".") || namespace === "" ? a : `${namespace}.${a}`)) };
  }

  private aliases(json: JsonObject, namespace: string, where: string, qualify: (alias: string) => string): string[] {
    const aliases = json.aliases;
    if (aliases === undefined) return [];
    if (!Array.isArray(aliases) || !aliases.every((a) => typeof a === "string")) fail(where, '"aliases" must be an array of strings');
    return (aliases as string[]).map(qualify);
  }

  private record(json: JsonObject, enclosing: string, where: string): AvroRecord {
    const { name, namespace, aliases } = this.define(json, enclosing, where, "record");
    if (!Array.isArray(json.fields)) fail(name, 'a record needs a "fields" array');
    const fields: AvroField[] = [];
    const record: AvroRecord = { type: "record", name, aliases, fields };
    // Defined before its fields are parsed, so that a field may refer to the record itself.
    this.named.set(name, record);
    const names = new Set<string>();
    (json.fields as unknown[]).forEach((f, i) => {
      if (!isObject(f) || typeof f.name !== "string") fail(`${name} field ${i}`, 'a field is an object with a "name" string');
      const at = `${name}.${f.name}`;
      if (!NAME.test(f.name)) fail(at, `${JSON.stringify(f.name)} is not a valid field name ([A-Za-z_][A-Za-z0-9_]*)`);
      if (names.has(f.name)) fail(at, `record ${name} has two fields named ${JSON.stringify(f.name)}`);
      names.add(f.name);
      if (!("type" in f)) fail(at, 'a field needs a "type"');
      const type = this.parse(f.type, namespace, at);
      const order = f.order ?? "ascending";
      if (typeof order !== "string" || !ORDERS.has(order)) fail(at, `"order" is "ascending", "descending" or "ignore", not ${JSON.stringify(order)}`);
      let defaultValue: AvroField["default"] = null;
      if ("default" in f) {
        const problem = defaultProblem(type, f.default);
        if (problem !== null) fail(at, `invalid default: ${problem}`);
        defaultValue = { value: f.default };
      }
      fields.push({ name: f.name, type, aliases: this.aliases(f, namespace, at, (a) => a), default: defaultValue, order: order as AvroField["order"] });
    });
    return record;
  }

  private enumType(json: JsonObject, enclosing: string, where: string): AvroEnum {
    const { name, aliases } = this.define(json, enclosing, where, "enum");
    const symbols = json.symbols;
    if (!Array.isArray(symbols) || !symbols.every((s) => typeof s === "string")) fail(name, 'an enum needs a "symbols" array of strings');
    const seen = new Set<string>();
    for (const s of symbols as string[]) {
      if (!NAME.test(s)) fail(name, `enum symbol ${JSON.stringify(s)} is not a valid name ([A-Za-z_][A-Za-z0-9_]*)`);
      if (seen.has(s)) fail(name, `enum symbol ${JSON.stringify(s)} appears twice`);
      seen.add(s);
    }
    const fallback = json.default;
    if (fallback !== undefined && (typeof fallback !== "string" || !seen.has(fallback))) fail(name, `the enum's default ${JSON.stringify(fallback)} is not one of its symbols`);
    const result: AvroEnum = { type: "enum", name, aliases, symbols: symbols as string[], default: (fallback as string | undefined) ?? null };
    this.named.set(name, result);
    return result;
  }

  private fixed(json: JsonObject, enclosing: string, where: string): AvroFixed {
    const { name, aliases } = this.define(json, enclosing, where, "fixed");
    const size = json.size;
    if (!Number.isInteger(size) || (size as number) < 0) fail(name, `a fixed needs a "size" that is a whole number of bytes, got ${JSON.stringify(size) ?? "nothing"}`);
    const result: AvroFixed = { type: "fixed", name, aliases, size: size as number, logicalType: fixedLogicalType(size as number, json) };
    this.named.set(name, result);
    return result;
  }
}
