import type { Session } from "../../api/session.js";
import type { DataFrame } from "../../api/data-frame.js";
import type { Batch } from "../../batch/batch.js";
import { batchToRows } from "../../batch/rows.js";
import { type LogicalPlan, planChildren } from "../../plan/logical.js";
import { compileRelation } from "./compile-relation.js";
import type { CompileContext } from "./compile-source.js";
import { batchFromSparkArrow } from "./spark-arrow-batch.js";
import type { SparkTestClient } from "./testing-client.js";

/**
 * For the compiler's server tests: the rows a DataFrame gives when its plan runs on the Spark
 * Connect server, read back as Sluice reads them, beside the rows the embedded engine gives.
 */

/** The in-memory tables a plan reads, taken from the session that made them (as the remote session will hand them over). */
async function tablesOf(session: Session, plan: LogicalPlan): Promise<CompileContext> {
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
