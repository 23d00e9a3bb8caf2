// Test child processes that run one plan: a module that does something given a JSON plan calls
// `runIfMain(import.meta.url, main)` at its end, and tests start it with `spawnPlanChild`.
import { spawn, type ChildProcess, type SerializationType, type StdioOptions } from "node:child_process";
import { fileURLToPath } from "node:url";

/**
 * Starts `moduleUrl` (a TypeScript module, through tsx; a JavaScript one as it is) in a new Node process with
 * `plan` as its argument. `serialization` applies to an "ipc" entry of `stdio` ("advanced": structured clone).
 */
export function spawnPlanChild(moduleUrl: string, plan: unknown, env: Record<string, string>, stdio: StdioOptions, options: { serialization?: SerializationType } = {}): ChildProcess {
  const file = fileURLToPath(moduleUrl);
  const loader = /\.[cm]?ts$/.test(file) ? ["--import", "tsx"] : [];
  return spawn(process.execPath, [...loader, file, JSON.stringify(plan)], { env: { ...process.env, ...env }, stdio, ...options });
}

/** In a child started by `spawnPlanChild`: runs `main` on the plan, exiting 0 when it resolves and 1 (error on stderr) when it rejects. */
export function runIfMain<P>(moduleUrl: string, main: (plan: P) => Promise<void>): void {
  if (process.argv[1] !== fileURLToPath(moduleUrl)) return;
  main(JSON.parse(process.argv[2]!) as P).then(
    () => process.exit(0),
    (e: unknown) => {
      console.error(e);
      process.exit(1);
    },
  );
}
