import { randomUUID } from "node:crypto";
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import * as arrow from "apache-arrow";
import { SparkConnectService } from "../gen/spark/connect/base_pb.js";
import type { Relation } from "../gen/spark/connect/relations_pb.js";
import type { DataType } from "../gen/spark/connect/types_pb.js";
import { REMOTE_SESSION_CONF } from "./session-conf.js";

/**
 * The smallest Spark Connect client the compiler's tests need: one server session, configured
 * with REMOTE_SESSION_CONF, that runs a relation and returns its Arrow rows. The remote session's
 * own client replaces it.
 */
export interface SparkTestClient {
  /** Runs the relation (ExecutePlan, root) and returns every Arrow batch it answered with, as one table. */
  collect(relation: Relation): Promise<arrow.Table>;
  /** The schema Spark's analyzer gives the relation (AnalyzePlan), without running it: streaming plans too. */
  schema(relation: Relation): Promise<DataType>;
  /** Releases the server session (its queries and tables go with it). */
  close(): Promise<void>;
}

/** `sc://host:port` (SPARK_REMOTE; default sc://127.0.0.1:15002) as the HTTP/2 URL gRPC dials. */
export function sparkRemoteUrl(remote = process.env["SPARK_REMOTE"] ?? "sc://127.0.0.1:15002"): string {
  const m = /^sc:\/\/([^/:;]+)(?::(\d+))?/.exec(remote);
  if (!m) throw new Error(`SPARK_REMOTE must look like sc://host:port, not ${remote}`);
  return `http://${m[1]}:${m[2] ?? "15002"}`;
}

export async function sparkTestClient(): Promise<SparkTestClient> {
  const client = createClient(SparkConnectService, createGrpcTransport({ baseUrl: sparkRemoteUrl() }));
  const base = { sessionId: randomUUID(), userContext: { userId: "sluice" }, clientType: "sluice" };
  await client.config({
    ...base,
    operation: { opType: { case: "set", value: { pairs: Object.entries(REMOTE_SESSION_CONF).map(([key, value]) => ({ key, value })) } } },
  });
  return {
    async collect(relation) {
      const batches: arrow.RecordBatch[] = [];
      let schema: arrow.Schema | null = null;
      for await (const r of client.executePlan({ ...base, operationId: randomUUID(), plan: { opType: { case: "root", value: relation } } })) {
        if (r.responseType.case !== "arrowBatch") continue;
        const table = arrow.tableFromIPC(r.responseType.value.data);
        schema ??= table.schema;
        batches.push(...table.batches);
      }
      return batches.length > 0 ? new arrow.Table(batches) : new arrow.Table(schema ?? new arrow.Schema([]));
    },
    async schema(relation) {
      const r = await client.analyzePlan({ ...base, analyze: { case: "schema", value: { plan: { opType: { case: "root", value: relation } } } } });
      if (r.result.case !== "schema" || !r.result.value.schema) throw new Error(`AnalyzePlan answered ${r.result.case} without a schema`);
      return r.result.value.schema;
    },
    async close() {
      await client.releaseSession(base);
    },
  };
}
