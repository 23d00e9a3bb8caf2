import { writeSync } from "node:fs";

/**
 * Named crash points for fault tests: a child process started with `SLUICE_CRASH_AT=<name>` (or
 * `<name>:<detail>`, e.g. a batch id) kills itself with SIGKILL when it reaches that point, so a
 * test can restart it and check that nothing was lost or duplicated. Read once at load: the
 * check costs one comparison when unset.
 */
const CRASH_AT = process.env["SLUICE_CRASH_AT"];

/**
 * Crashes the process here if `SLUICE_CRASH_AT` names this point (with or without this detail).
 * The line on stderr, written synchronously before the kill, lets a test assert the crash happened.
 */
export function crashPoint(name: string, detail?: number): void {
  if (CRASH_AT === undefined) return;
  if (CRASH_AT !== name && CRASH_AT !== `${name}:${detail}`) return;
  writeSync(2, `SLUICE_CRASHED ${name} ${detail}\n`);
  process.kill(process.pid, "SIGKILL");
}
