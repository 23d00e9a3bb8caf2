// Global setup of the `remote` vitest project (files named *.remote.test.ts). Unless SPARK_REMOTE names a Spark
// Connect server, it starts the project's own one with `scripts/spark-connect.sh start` (which fetches Spark's jars
// with Maven the first time, ~343 MB, then starts from the cache in 10-30 s and runs a first query to warm it up),
// provides its URL as `inject("sparkRemote")` (read it through `sparkRemote()` from ./spark-connect.ts), and stops
// it at teardown unless it was already running before.
import { spawn, spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { TestProject } from "vitest/node";

const script = fileURLToPath(new URL("../../scripts/spark-connect.sh", import.meta.url));

/**
 * The test server requires a token (so that tests of the token's absence and of a wrong one run against Spark's
 * own check), cuts result streams after 10 s (Spark's default is 2 minutes: here every long call, the listener
 * bus and awaitTermination, goes through ReattachExecute), and closes a session idle for 30 s (an hour by
 * default; checked every 5 s): the keep-alive test waits for longer than that.
 */
export const TEST_SERVER_TOKEN = "sluice-test-token";
const TEST_SERVER_ENV = {
  SPARK_CONNECT_TOKEN: TEST_SERVER_TOKEN,
  SPARK_CONNECT_CONF: [
    "spark.connect.execute.reattachable.senderMaxStreamDuration=10s",
    "spark.connect.session.manager.defaultSessionTimeout=30s",
    "spark.connect.session.manager.maintenanceInterval=5s",
  ].join(" "),
};

export default async function setup(project: TestProject): Promise<(() => void) | undefined> {
  const external = process.env.SPARK_REMOTE?.trim();
  if (external) {
    project.provide("sparkRemote", external);
    return undefined;
  }
  const env = { ...process.env, ...TEST_SERVER_ENV };
  const wasRunning = spawnSync("bash", [script, "status"], { stdio: "ignore", env }).status === 0;
  await new Promise<void>((resolve, reject) => {
    const child = spawn("bash", [script, "start"], { stdio: ["ignore", "inherit", "inherit"], env });
    child.on("error", reject);
    child.on("exit", (code, signal) =>
      code === 0
        ? resolve()
        : reject(new Error(`scripts/spark-connect.sh start failed (${signal ?? `exit ${code}`}); see its output above`)),
    );
  });
  project.provide("sparkRemote", spawnSync("bash", [script, "remote"], { encoding: "utf8", env }).stdout.trim());
  if (wasRunning) return undefined;
  // Synchronous, so that vitest's teardown timer cannot end the process while the server shuts down.
  return () => {
    spawnSync("bash", [script, "stop"], { stdio: ["ignore", "inherit", "inherit"] });
  };
}
