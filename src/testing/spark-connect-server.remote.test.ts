// The Spark Connect server the `remote` project's global setup provides (scripts/spark-connect.sh, or SPARK_REMOTE)
// answers Sluice's client: the version it reports, and a query's rows as Arrow.
import { tableFromIPC } from "apache-arrow";
import { afterAll, describe, expect, it } from "vitest";
import { parseConnectionString } from "../remote/client/connection-string.js";
import { SparkConnectClient } from "../remote/client/spark-connect-client.js";
import { sparkRemote } from "./spark-connect.js";

describe("the Spark Connect server of the remote tests", () => {
  const client = new SparkConnectClient(parseConnectionString(sparkRemote()), { callTimeoutMs: 60_000, pingIntervalMs: 10_000, maxReattachAttempts: 5 });

  afterAll(() => client.close());

  it("reports Spark 4.2.0 through AnalyzePlan", async () => {
    const response = await client.analyze({ case: "sparkVersion", value: {} }, "version");
    expect(response.sessionId).toBe(client.sessionId);
    expect(response.result.case === "sparkVersion" && response.result.value.version).toBe("4.2.0");
  });

  it("answers SELECT 1 AS one with one Arrow batch of one row, then ResultComplete", async () => {
    const responses = await client.executeAll({ opType: { case: "root", value: { relType: { case: "sql", value: { query: "SELECT 1 AS one" } } } } }, "SELECT 1");
    const batches = responses.flatMap((r) => (r.responseType.case === "arrowBatch" ? [r.responseType.value] : []));
    expect(batches).toHaveLength(1);
    expect(batches[0]!.rowCount).toBe(1n);
    const table = tableFromIPC(batches[0]!.data);
    expect(table.schema.fields.map((f) => `${f.name}: ${String(f.type)}`)).toEqual(["one: Int32"]);
    expect(table.toArray().map((row) => row.toJSON())).toEqual([{ one: 1 }]);
    expect(responses.at(-1)!.responseType.case).toBe("resultComplete");
  });
});
