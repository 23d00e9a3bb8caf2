import type { Session } from "../../api/session.js";
import type { DataFrame } from "../../api/data-frame.js";
import type { Batch } from "../../batch/batch.js";
import { batchToRows } from "../../batch/rows.js";
import { type LogicalPlan, planChildren } from "../../plan/logical.js";
import { compileRelation } from "./compile-relation.js";
import type { CompileContext } from "./compile-source.js";
import { batchFromSparkArrow } from "./spark-arrow-batch.js";
import type { SparkTestClient } from "./testing-client.js";
import type { DataType } from "../gen/spark/connect/types_pb.js";

/**
 * For the compiler's server tests: the rows a DataFrame gives when its plan runs on the Spark
 * Connect server, read back as Sluice reads them, beside the rows the embedded engine gives.
 */

/** The in-memory tables a plan reads, taken from the session that made them (as the remote session will hand them over). */
export async function tablesOf(session: Session, plan: LogicalPlan): Promise<CompileContext> {
  const tables = new Map<string, readonly Batch[]>();
  const visit = async (p: LogicalPlan): Promise<void> => {
    if (p.kind === "source" && p.source.format === "table" && !tables.has(p.source.tableId)) {
      tables.set(p.source.tableId, [await session.executeStatic(p)]);
    }
    for (const c of planChildren(p)) await visit(c);
  };
  await visit(plan);
  return {
    tableBatches: (id) => {
      const batches = tables.get(id);
      if (!batches) throw new Error(`no table ${id}`);
      return batches;
    },
  };
}

export async function remoteRows(client: SparkTestClient, session: Session, df: DataFrame<any>): Promise<Record<string, unknown>[]> {
  const relation = compileRelation(df.plan, await tablesOf(session, df.plan));
  return batchToRows(batchFromSparkArrow(await client.collect(relation), df.schema));
}

/** Rows in a stable order (for plans whose order neither engine promises). */
export function sorted(rows: Record<string, unknown>[]): Record<string, unknown>[] {
  const key = (r: Record<string, unknown>) =>
    JSON.stringify(r, (_, v: unknown) => (v instanceof Uint8Array ? Array.from(v) : v));
  return [...rows].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

/**
 * A Spark schema as Sluice's fields, for comparison with schemaOf: Spark's types named as Sluice
 * names the type it maps to (spark-types.ts), "?" for one Sluice has no name for.
 */
export function fieldsOfSparkSchema(schema: DataType): { name: string; type: string }[] {
  if (schema.kind.case !== "struct") throw new Error(`a schema is a struct, not ${schema.kind.case}`);
  return schema.kind.value.fields.map((f) => ({ name: f.name, type: sluiceTypeName(f.dataType!) }));
}

function sluiceTypeName(t: DataType): string {
  switch (t.kind.case) {
    case "string":
      return "string";
    case "double":
      return "float64";
    case "integer":
      return "int32";
    case "long":
      return "int64";
    case "boolean":
      return "boolean";
    case "timestamp":
      return "timestamp";
    case "binary":
      return "binary";
    case "struct":
      return t.kind.value.fields.map((f) => `${f.name}:${sluiceTypeName(f.dataType!)}`).join(",") === "start:timestamp,end:timestamp" ? "window" : "?";
    case "array":
      return "headers";
    default:
      return "?";
  }
}
