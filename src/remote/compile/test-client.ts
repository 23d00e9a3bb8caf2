import * as arrow from "apache-arrow";
import { sparkRemote } from "../../testing/spark-connect.js";
import { parseConnectionString } from "../client/connection-string.js";
import { SparkConnectClient } from "../client/spark-connect-client.js";
import type { Relation } from "../gen/spark/connect/relations_pb.js";
import type { DataType } from "../gen/spark/connect/types_pb.js";
import { REMOTE_SESSION_CONF } from "./session-conf.js";

/**
 * What the compiler's tests need from a server: one session, configured with REMOTE_SESSION_CONF
 * as a remote Session configures its own, that runs a compiled relation and returns its Arrow rows.
 */
export interface SparkTestClient {
  /** Runs the relation (ExecutePlan, root) and returns every Arrow batch it answered with, as one table. */
  collect(relation: Relation): Promise<arrow.Table>;
  /** The schema Spark's analyzer gives the relation (AnalyzePlan), without running it: streaming plans too. */
  schema(relation: Relation): Promise<DataType>;
  /** Releases the server session (its queries and tables go with it). */
  close(): Promise<void>;
}

export async function sparkTestClient(): Promise<SparkTestClient> {
  const client = new SparkConnectClient(parseConnectionString(sparkRemote()), { callTimeoutMs: 60_000, pingIntervalMs: 10_000, maxReattachAttempts: 5 });
  await client.config({ opType: { case: "set", value: { pairs: Object.entries(REMOTE_SESSION_CONF).map(([key, value]) => ({ key, value })) } } }, "session settings");
  return {
    async collect(relation) {
      const batches: arrow.RecordBatch[] = [];
      let schema: arrow.Schema | null = null;
      for (const r of await client.executeAll({ opType: { case: "root", value: relation } }, "collect")) {
        if (r.responseType.case !== "arrowBatch") continue;
        const table = arrow.tableFromIPC(r.responseType.value.data);
        schema ??= table.schema;
        batches.push(...table.batches);
      }
      return batches.length > 0 ? new arrow.Table(batches) : new arrow.Table(schema ?? new arrow.Schema([]));
    },
    async schema(relation) {
      const r = await client.analyze({ case: "schema", value: { plan: { opType: { case: "root", value: relation } } } }, "schema");
      if (r.result.case !== "schema" || !r.result.value.schema) throw new Error(`AnalyzePlan answered ${r.result.case} without a schema`);
      return r.result.value.schema;
    },
    close: () => client.close(),
  };
}
