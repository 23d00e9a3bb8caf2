import type * as arrow from "apache-arrow";
import { type Batch, makeBatch, readValidity } from "../batch/batch.js";
import { InternalError, PreparationNeeded } from "../errors/errors.js";
import type { Expr, ExprOf } from "../expr/ast.js";
import { evaluate, projectionFields } from "../expr/compile.js";
import { decodeFormattedValues, usesSchemaIds, writerSchemaIds, type WriterSchemasById } from "../formats/value-format.js";
import type { ValueColumn } from "../formats/value-records.js";
import { writerSchemaFetcher } from "../schema-registry/writer-schemas.js";
import type { Field } from "../types/dtype.js";
import { BaseExec } from "./exec.js";

/**
 * One output column per expression, named by `outputField`; a column that passes through is the
 * input's own `Data` (zero-copy).
 */
export function projectBatch(batch: Batch, exprs: readonly Expr[]): Batch {
  return makeBatch(
    projectionFields(exprs, batch.fields),
    exprs.map((e) => evaluate(e, batch)),
    batch.numRows,
  );
}

/**
 * `select`: each expression gives one column, except `from_json`, `from_avro` or
 * `from_protobuf(col, schema)`, which decodes the column's values straight into the schema's columns
 * (PERMISSIVE: a malformed or null value gives nulls; FAILFAST: an error naming the row).
 */
export function project(batch: Batch, exprs: readonly Expr[]): Batch {
  if (!exprs.some((e) => e.kind === "decodeValues")) return projectBatch(batch, exprs);
  const fields: Field[] = [];
  const columns: arrow.Data[] = [];
  for (const e of exprs) {
    if (e.kind !== "decodeValues") {
      const one = projectBatch(batch, [e]);
      fields.push(one.fields[0]!);
      columns.push(one.columns[0]!);
      continue;
    }
    const decoded = decodeColumn(e, evaluate(e.child, batch));
    decoded.fields.forEach((f, i) => {
      fields.push({ ...f, nullable: true });
      columns.push(decoded.columns[i]!);
    });
  }
  return makeBatch(fields, columns, batch.numRows);
}

function decodeColumn(e: ExprOf<"decodeValues">, data: arrow.Data): Batch {
  const column = { bytes: data.values as Uint8Array, offsets: data.valueOffsets as Int32Array, validity: readValidity(data) };
  return decodeFormattedValues(e.format, column, e.fields, {
    mode: e.mode,
    columnNameOfCorruptRecord: e.format.kind === "json" ? "_corrupt_record" : undefined,
    describeRecord: (i) => `row ${i} of the batch`,
    writerSchemas: usesSchemaIds(e.format) ? writerSchemasOf(e, column) : undefined,
  }).batch;
}

/** The writer schemas of the ids the values name, from this process's cache; fetched through PreparationNeeded when one is missing. */
function writerSchemasOf(e: ExprOf<"decodeValues">, column: ValueColumn): WriterSchemasById {
  const kind = e.format.kind === "avro" ? "avro" : "protobuf";
  if (e.registry === null) throw new InternalError(`from_${kind}() of Confluent wire-format values without a schema registry`);
  const fetcher = writerSchemaFetcher(e.registry);
  const ids = writerSchemaIds(e.format, column);
  const known = fetcher.known(kind, ids);
  if (known !== undefined) return known;
  throw new PreparationNeeded(
    `from_${kind}() needs the writer schemas of ids ${ids.join(", ")} from the schema registry at ${fetcher.client.url}, which it fetches in the query's input tasks; ` +
      "it cannot run after a stateful operator (aggregation, dropDuplicates, join): decode the values before it",
    () => fetcher.fetch(kind, ids),
  );
}

/** `select` / `withColumn` / `drop` and the planner's own projections. */
export class ProjectExec extends BaseExec {
  constructor(readonly exprs: readonly Expr[]) {
    super();
  }

  process(batch: Batch): Batch {
    return project(batch, this.exprs);
  }
}
