// Global setup of the `kafka` vitest project (files named *.kafka.test.ts). Vitest runs it only when such files
// are part of the run. Unless KAFKA_BOOTSTRAP_SERVERS names a broker, it starts the project's own one with
// `scripts/kafka.sh start` (which fetches Kafka first when needed), provides its address to the tests as
// `inject("kafkaBootstrap")` (read it through `kafkaBootstrap()` from ./kafka.ts), and stops it at teardown,
// unless it was already running before.
import { spawn, spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { TestProject } from "vitest/node";

const script = fileURLToPath(new URL("../../scripts/kafka.sh", import.meta.url));

function kafkaSh(command: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn("bash", [script, command], { stdio: ["ignore", "inherit", "inherit"] });
    child.on("error", reject);
    child.on("exit", (code, signal) =>
      code === 0
        ? resolve()
        : reject(new Error(`scripts/kafka.sh ${command} failed (${signal ?? `exit ${code}`}); see its output above`)),
    );
  });
}

export default async function setup(project: TestProject): Promise<(() => void) | undefined> {
  const external = process.env.KAFKA_BOOTSTRAP_SERVERS?.trim();
  if (external) {
    project.provide("kafkaBootstrap", external);
    return undefined;
  }
  const wasRunning = spawnSync("bash", [script, "status"], { stdio: "ignore" }).status === 0;
  await kafkaSh("start");
  const bootstrap = spawnSync("bash", [script, "bootstrap"], { encoding: "utf8" }).stdout.trim();
  project.provide("kafkaBootstrap", bootstrap);
  if (wasRunning) return undefined;
  // Synchronous, so that vitest's teardown timer cannot end the process while the broker shuts down.
  return () => {
    spawnSync("bash", [script, "stop"], { stdio: ["ignore", "inherit", "inherit"] });
  };
}
