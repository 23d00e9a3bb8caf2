// Global setup of the `kafka` and `faults` vitest projects, for the tests against the schema registry
// (src/**/*.registry.test.ts, and fault tests that stop it). Unless SCHEMA_REGISTRY_URL names a registry, it
// starts the project's own one with `scripts/schema-registry.sh start` (which fetches Apicurio Registry with
// Maven the first time, ~146 MB, then starts from the cache in about 10 s), provides its Confluent-compatible
// URL as `inject("schemaRegistryUrl")` (read it through `schemaRegistryUrl()` from
// src/schema-registry/test-support.ts), and stops it at teardown unless it was already running before.
import { spawn, spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { TestProject } from "vitest/node";

const script = fileURLToPath(new URL("../../scripts/schema-registry.sh", import.meta.url));

export default async function setup(project: TestProject): Promise<(() => void) | undefined> {
  const external = process.env.SCHEMA_REGISTRY_URL?.trim();
  if (external) {
    project.provide("schemaRegistryUrl", external);
    return undefined;
  }
  const wasRunning = spawnSync("bash", [script, "status"], { stdio: "ignore" }).status === 0;
  await new Promise<void>((resolve, reject) => {
    const child = spawn("bash", [script, "start"], { stdio: ["ignore", "inherit", "inherit"] });
    child.on("error", reject);
    child.on("exit", (code, signal) =>
      code === 0 ? resolve() : reject(new Error(`scripts/schema-registry.sh start failed (${signal ?? `exit ${code}`}); see its output above`)),
    );
  });
  project.provide("schemaRegistryUrl", spawnSync("bash", [script, "url"], { encoding: "utf8" }).stdout.trim());
  if (wasRunning) return undefined;
  // Synchronous, so that vitest's teardown timer cannot end the process while the registry shuts down.
  return () => {
    spawnSync("bash", [script, "stop"], { stdio: ["ignore", "inherit", "inherit"] });
  };
}
