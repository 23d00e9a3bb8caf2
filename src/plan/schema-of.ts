import { AnalysisError } from "../errors/errors.js";
import { assertNever } from "../expr/ast.js";
import type { Expr } from "../expr/ast.js";
import { lookupColumn, outputField, outputName, resolveType } from "../expr/resolve.js";
import type { Field, Fields } from "../types/dtype.js";
import { checkValueFormat } from "../formats/value-format.js";
import { unionFields } from "./union-types.js";
import { generatedField, generatorIndex } from "../expr/generator.js";
import type { LogicalPlan } from "./logical.js";

const cache = new WeakMap<LogicalPlan, Fields>();

/**
 * The output fields of a plan node, checking names and types on the way: the analyzer's name
 * and type resolution. Results are cached per (immutable) node.
 */
export function schemaOf(p: LogicalPlan): Fields {
  const hit = cache.get(p);
  if (hit) return hit;
  const fields = compute(p);
  cache.set(p, fields);
  return fields;
}

function compute(p: LogicalPlan): Fields {
  switch (p.kind) {
    case "source":
      return p.fields;
    case "project": {
      const input = schemaOf(p.input);
      return uniqueNames(p.exprs.flatMap((e) => (e.kind === "decodeValues" ? decodedFields(e, input) : [outputField(e, input)])), "select");
    }
    case "generate": {
      const input = schemaOf(p.input);
      const at = generatorIndex(p.exprs);
      return uniqueNames(p.exprs.map((e, i) => (i === at ? generatedField(e, input) : outputField(e, input))), "select");
    }
    case "filter": {
      const input = schemaOf(p.input);
      const f = outputField(p.condition, input);
      if (f.type !== "boolean") throw new AnalysisError(`filter condition "${f.name}" must be boolean, but is ${f.type}`);
      return input;
    }
    case "union":
      // Spark's union resolves by position, keeps the first input's names and widens types and nullability.
      return unionFields(p.inputs.map(schemaOf));
    case "watermark": {
      const input = schemaOf(p.input);
      const t = lookupColumn(p.column, input);
      if (t.type !== "timestamp" && t.type !== "window") {
        throw new AnalysisError(`withWatermark("${p.column}") needs a timestamp column, but "${p.column}" is ${t.type}`);
      }
      return input;
    }
    case "aggregate": {
      const input = schemaOf(p.input);
      const keys = p.keys.map((e) => {
        if (e.kind === "agg") throw new AnalysisError(`groupBy cannot take the aggregate ${outputName(e)}`);
        return notHeaders(outputField(e, input), "groupBy");
      });
      const aggs = p.aggs.map((e) => {
        const inner = e.kind === "alias" ? e.child : e;
        if (inner.kind !== "agg") {
          throw new AnalysisError(`agg() takes aggregate functions such as count(), sum(), avg(); got ${outputName(e)}`);
        }
        return outputField(e, input);
      });
      return uniqueNames([...keys, ...aggs], "groupBy/agg");
    }
    case "deduplicate": {
      const input = schemaOf(p.input);
      for (const c of p.columns) notHeaders({ name: c, ...lookupColumn(c, input) }, "dropDuplicates");
      return input;
    }
    case "sort": {
      const input = schemaOf(p.input);
      for (const o of p.orders) notHeaders(outputField(o.expr, input), "orderBy");
      return input;
    }
    case "limit":
      if (!Number.isInteger(p.n) || p.n < 0) throw new AnalysisError(`limit(${p.n}) needs a non-negative integer`);
      return schemaOf(p.input);
    case "join":
      return joinFields(p);
    case "transformWithState": {
      const input = schemaOf(p.input);
      for (const k of p.keys) notHeaders({ name: k, ...lookupColumn(k, input) }, "groupByKey");
      if (p.initialState) {
        const initial = schemaOf(p.initialState.plan);
        for (const k of p.initialState.keys) lookupColumn(k, initial);
      }
      return p.fields;
    }
    default:
      return assertNever(p, "plan node");
  }
}

/**
 * A join's output. On columns (`on`): every left column (each key where the left has it), then the
 * right side's other columns; a right outer join takes the keys' nullability from the right, a full
 * outer join makes them nullable unless both sides' are not. On a condition: every left column,
 * then every right column. The side an outer join may leave without a match becomes nullable; a
 * left semi or left anti join gives the left columns only.
 */
function joinFields(p: LogicalPlan & { kind: "join" }): Fields {
  const left = schemaOf(p.left);
  const right = schemaOf(p.right);
  for (const k of p.on) {
    const l = lookupColumn(k, left);
    const r = lookupColumn(k, right);
    if (l.type !== r.type) throw new AnalysisError(`join key "${k}" is ${l.type} on the left but ${r.type} on the right`);
    notHeaders({ name: k, ...l }, "join");
    if (l.type === "binary") {
      throw new AnalysisError(`join key "${k}" is binary, which a join cannot hash yet; join on its hex text instead: withColumn("${k}", hex(col("${k}"))) on both sides keeps every byte`);
    }
  }
  const leftNullable = p.joinType === "right" || p.joinType === "full";
  const rightNullable = p.joinType === "left" || p.joinType === "full";
  const leftOut = left.map((f): Field => {
    if (!p.on.includes(f.name)) return leftNullable ? { ...f, nullable: true } : f;
    const r = right.find((g) => g.name === f.name)!;
    if (p.joinType === "right") return { ...f, nullable: r.nullable };
    return p.joinType === "full" ? { ...f, nullable: f.nullable || r.nullable } : f;
  });
  if (p.joinType === "leftSemi" || p.joinType === "leftAnti") {
    if (p.condition) checkJoinCondition(p.condition, [...left, ...right]);
    return left;
  }
  const rest = right.filter((f) => !p.on.includes(f.name));
  const rightOut = rest.map((f): Field => (rightNullable ? { ...f, nullable: true } : f));
  const fields = uniqueNames([...leftOut, ...rightOut], "join");
  if (p.condition) checkJoinCondition(p.condition, [...left, ...right]);
  return fields;
}

function checkJoinCondition(condition: Expr, fields: Fields): void {
  const f = outputField(condition, fields);
  if (f.type !== "boolean") throw new AnalysisError(`join condition "${f.name}" must be boolean, but is ${f.type}`);
}

/**
 * The columns `from_json`, `from_avro` or `from_protobuf` adds: the schema's fields, nullable since a
 * malformed value gives nulls. JSON reads a string column or the UTF-8 bytes of a binary one; Avro
 * and Protobuf read binary. The schema is checked against the format's here, before anything runs.
 */
function decodedFields(e: Extract<Expr, { kind: "decodeValues" }>, input: Fields): Field[] {
  const source = resolveType(e.child, input);
  const fn = `from_${e.format.kind}()`;
  if (e.format.kind === "json" ? source.type !== "string" && source.type !== "binary" : source.type !== "binary") {
    const needs = e.format.kind === "json" ? "a string or binary column" : "a binary column";
    throw new AnalysisError(`${fn} needs ${needs}, but ${outputName(e.child)} is ${source.type}`);
  }
  checkValueFormat(e.format, e.fields, fn);
  return e.fields.map((f) => ({ ...f, nullable: true }));
}

/**
 * Headers are no key: `op` cannot group, deduplicate, order or join by them (they pass through
 * each of these as a column).
 */
function notHeaders(f: Field, op: string): Field {
  if (f.type === "headers") throw new AnalysisError(`${op} cannot use the headers column "${f.name}" as a key; key by its JSON text, to_json(col("${f.name}")), instead`);
  return f;
}

function uniqueNames(fields: Field[], op: string): Fields {
  const seen = new Set<string>();
  for (const f of fields) {
    if (seen.has(f.name)) {
      throw new AnalysisError(`${op} produces two columns named "${f.name}"; rename one with alias() or withColumnRenamed()`);
    }
    seen.add(f.name);
  }
  return fields;
}
