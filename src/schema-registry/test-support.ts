// Helpers for tests against the real schema registry. Such tests are named `*.registry.test.ts` (the `kafka`
// vitest project runs them, and src/testing/schema-registry-global-setup.ts starts the registry for them) or
// `*.faults.test.ts` when they stop it.
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { inject } from "vitest";

declare module "vitest" {
  export interface ProvidedContext {
    /** The URL of the schema registry (its Confluent-compatible API) the global setup started or was pointed at. */
    schemaRegistryUrl: string;
  }
}

const script = fileURLToPath(new URL("../../scripts/schema-registry.sh", import.meta.url));
const run = promisify(execFile);

/** The registry's URL: `SCHEMA_REGISTRY_URL` when set, else the one the global setup provides. */
export function schemaRegistryUrl(): string {
  const fromEnv = process.env.SCHEMA_REGISTRY_URL?.trim();
  if (fromEnv) return fromEnv;
  const provided = inject("schemaRegistryUrl");
  if (!provided) {
    throw new Error("no schema registry for this test: name the file *.registry.test.ts (the kafka project starts one) or set SCHEMA_REGISTRY_URL");
  }
  return provided;
}

let subjects = 0;

/** A subject no other test (in this run or an earlier one against the same registry) uses. */
export function uniqueSubject(base: string): string {
  subjects += 1;
  return `sluice-${base}-${process.pid}-${subjects}-${randomBytes(3).toString("hex")}`;
}

async function registrySh(command: "start" | "stop"): Promise<void> {
  if (process.env.SCHEMA_REGISTRY_URL?.trim()) {
    throw new Error(`cannot ${command} the registry at SCHEMA_REGISTRY_URL: fault tests need the project's own registry (unset it)`);
  }
  try {
    await run("bash", [script, command], { encoding: "utf8", timeout: 180_000 });
  } catch (e) {
    const { stderr, message } = e as { stderr?: string; message: string };
    throw new Error(`scripts/schema-registry.sh ${command} failed: ${stderr?.trim() || message}`);
  }
}

/** The project's registry as a service that fault tests stop and start (it begins empty after each start). */
export const schemaRegistryService = {
  stop: () => registrySh("stop"),
  /** Starts it and waits until it registers schemas; a no-op when it runs. */
  start: () => registrySh("start"),
};
