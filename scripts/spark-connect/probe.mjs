// Asks the Spark Connect server at argv[2] (host:port) for its Spark version (AnalyzePlan) and runs `SELECT 1`
// (ExecutePlan), as a client would, in a session it releases afterwards; argv[3] is how long to wait for all
// that, in ms (default 30000). Exit 0 and one line (the version, the query's time) when it answers; 1 when it
// does not (yet); 2 when this probe cannot run. Used by scripts/spark-connect.sh to wait for a starting server:
// a cold server spends seconds on its first query, and this one warms it up.
//
// The client is Sluice's generated code (src/remote/gen, TypeScript), loaded through tsx.
import { randomUUID } from "node:crypto";

const address = process.argv[2];
const timeoutMs = Number(process.argv[3] ?? 30_000);
if (!address || !Number.isFinite(timeoutMs) || timeoutMs <= 0) {
  console.log("usage: probe.mjs host:port [timeout-ms]");
  process.exit(2);
}

let createClient, createGrpcTransport, SparkConnectService;
try {
  ({ createClient } = await import("@connectrpc/connect"));
  ({ createGrpcTransport } = await import("@connectrpc/connect-node"));
  const { tsImport } = await import("tsx/esm/api");
  ({ SparkConnectService } = await tsImport("../../src/remote/gen/spark/connect/base_pb.ts", import.meta.url));
} catch (error) {
  console.log(`cannot load the Spark Connect client (run npm ci): ${error.message}`);
  process.exit(2);
}

// A server started with SPARK_CONNECT_TOKEN requires it on every call.
const token = process.env.SPARK_CONNECT_TOKEN;
const withToken = (next) => (req) => {
  if (token) req.header.set("authorization", `Bearer ${token}`);
  return next(req);
};
const client = createClient(SparkConnectService, createGrpcTransport({ baseUrl: `http://${address}`, interceptors: [withToken] }));
const session = { sessionId: randomUUID(), userContext: { userId: "sluice" }, clientType: "sluice-probe" };
const signal = AbortSignal.timeout(timeoutMs);
try {
  const analyzed = await client.analyzePlan({ ...session, analyze: { case: "sparkVersion", value: {} } }, { signal });
  if (analyzed.result.case !== "sparkVersion") throw new Error(`AnalyzePlan answered ${analyzed.result.case}`);
  const started = performance.now();
  let rows = 0n;
  const plan = { opType: { case: "root", value: { relType: { case: "sql", value: { query: "SELECT 1" } } } } };
  for await (const response of client.executePlan({ ...session, plan }, { signal })) {
    if (response.responseType.case === "arrowBatch") rows += response.responseType.value.rowCount;
  }
  if (rows !== 1n) throw new Error(`SELECT 1 returned ${rows} rows`);
  const queryMs = performance.now() - started;
  await client.releaseSession(session, { signal });
  console.log(`Spark ${analyzed.result.value.version}, SELECT 1 answered in ${(queryMs / 1000).toFixed(1)} s`);
  process.exit(0);
} catch (error) {
  console.log(error.message);
  process.exit(1);
}
