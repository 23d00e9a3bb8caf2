// The Spark Connect server the `remote` project's global setup provides (scripts/spark-connect.sh, or SPARK_REMOTE)
// answers a client of Sluice's generated protocol code: the version it reports, and a query's rows as Arrow.
import { randomUUID } from "node:crypto";
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { tableFromIPC } from "apache-arrow";
import { afterAll, describe, expect, it } from "vitest";
import { SparkConnectService, type ExecutePlanResponse } from "../remote/gen/spark/connect/base_pb.js";
import { sparkRemoteHttpUrl } from "./spark-connect.js";

describe("the Spark Connect server of the remote tests", () => {
  const client = createClient(SparkConnectService, createGrpcTransport({ baseUrl: sparkRemoteHttpUrl() }));
  const session = { sessionId: randomUUID(), userContext: { userId: "sluice" }, clientType: "sluice-test" };

  afterAll(async () => {
    await client.releaseSession(session);
  });

  it("reports Spark 4.2.0 through AnalyzePlan", async () => {
    const response = await client.analyzePlan({ ...session, analyze: { case: "sparkVersion", value: {} } });
    expect(response.sessionId).toBe(session.sessionId);
    expect(response.result.case).toBe("sparkVersion");
    expect(response.result.case === "sparkVersion" && response.result.value.version).toBe("4.2.0");
  });

  it("answers SELECT 1 AS one with one Arrow batch of one row", async () => {
    const responses: ExecutePlanResponse[] = [];
    const plan = { opType: { case: "root" as const, value: { relType: { case: "sql" as const, value: { query: "SELECT 1 AS one" } } } } };
    for await (const response of client.executePlan({ ...session, operationId: randomUUID(), plan })) responses.push(response);

    const batches = responses.flatMap((r) => (r.responseType.case === "arrowBatch" ? [r.responseType.value] : []));
    expect(batches).toHaveLength(1);
    expect(batches[0]!.rowCount).toBe(1n);
    const table = tableFromIPC(batches[0]!.data);
    expect(table.schema.fields.map((f) => `${f.name}: ${String(f.type)}`)).toEqual(["one: Int32"]);
    expect(table.toArray().map((row) => row.toJSON())).toEqual([{ one: 1 }]);
  });
});
