// Global setup of the `remote` vitest project (files named *.remote.test.ts). Unless SPARK_REMOTE names a Spark
// Connect server, it starts the project's own one with `scripts/spark-connect.sh start` (which fetches Spark's jars
// with Maven the first time, ~343 MB, then starts from the cache in 10-30 s and runs a first query to warm it up),
// provides its URL as `inject("sparkRemote")` (read it through `sparkRemote()` from ./spark-connect.ts), and stops
// it at teardown unless it was already running before.
import { spawn, spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { TestProject } from "vitest/node";

const script = fileURLToPath(new URL("../../scripts/spark-connect.sh", import.meta.url));

export default async function setup(project: TestProject): Promise<(() => void) | undefined> {
  const external = process.env.SPARK_REMOTE?.trim();
  if (external) {
    project.provide("sparkRemote", external);
    return undefined;
  }
  const wasRunning = spawnSync("bash", [script, "status"], { stdio: "ignore" }).status === 0;
  await new Promise<void>((resolve, reject) => {
    const child = spawn("bash", [script, "start"], { stdio: ["ignore", "inherit", "inherit"] });
    child.on("error", reject);
    child.on("exit", (code, signal) =>
      code === 0
        ? resolve()
        : reject(new Error(`scripts/spark-connect.sh start failed (${signal ?? `exit ${code}`}); see its output above`)),
    );
  });
  project.provide("sparkRemote", spawnSync("bash", [script, "remote"], { encoding: "utf8" }).stdout.trim());
  if (wasRunning) return undefined;
  // Synchronous, so that vitest's teardown timer cannot end the process while the server shuts down.
  return () => {
    spawnSync("bash", [script, "stop"], { stdio: ["ignore", "inherit", "inherit"] });
  };
}
