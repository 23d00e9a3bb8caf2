import { writeSync } from "node:fs";

/**
 * Named crash points for fault tests. A test starts Sluice in a child process with
 * `SLUICE_CRASH_AT=<name>` (any detail) or `SLUICE_CRASH_AT=<name>:<detail>` (one detail, such as
 * a version or batch id); when the code reaches that point the process writes one line
 * `SLUICE_CRASHED <name> <detail>` to stderr, so the test can assert that the fault really
 * happened, and SIGKILLs itself: no `finally`, no exit handler, no buffered write gets to run,
 * exactly as with a power cut or an OOM kill.
 *
 * Unset, a crash point costs one environment lookup; they sit on commit paths, never per row.
 */
export function crashPoint(name: string, detail?: number): void {
  const wanted = process.env.SLUICE_CRASH_AT;
  if (wanted === undefined || !matches(wanted, name, detail)) return;
  writeSync(2, `SLUICE_CRASHED ${name}${detail === undefined ? "" : ` ${detail}`}\n`);
  process.kill(process.pid, "SIGKILL");
}

function matches(wanted: string, name: string, detail: number | undefined): boolean {
  const colon = wanted.indexOf(":");
  if (colon < 0) return wanted === name;
  return wanted.slice(0, colon) === name && detail !== undefined && wanted.slice(colon + 1) === String(detail);
}
