import * as fs from "node:fs";

/**
 * Named places where the fault tests kill the process. `SLUICE_CRASH_AT=<name>` or
 * `SLUICE_CRASH_AT=<name>:<detail>` (e.g. `kafkaSinkBeforeCommit:3`, batch 3 only) makes the
 * matching `crashPoint` call announce itself on stderr and SIGKILL its own process, so nothing
 * (no finally block, no exit handler) runs after it, as in a real crash. Read once at load: a
 * process crashes where it was started to crash.
 */
const crashAt = process.env.SLUICE_CRASH_AT;

export function crashPoint(name: string, detail?: number): void {
  if (crashAt === undefined) return;
  if (crashAt !== name && crashAt !== `${name}:${detail}`) return;
  fs.writeSync(2, `SLUICE_CRASHED ${name} ${detail}\n`);
  process.kill(process.pid, "SIGKILL");
}
