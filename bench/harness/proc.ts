/**
 * CPU time and peak resident memory of a system under test, read from /proc: the process and
 * every descendant (a launcher's children, a JVM's helper processes), all threads included.
 */
import { readdirSync, readFileSync } from "node:fs";

/** Clock ticks per second of /proc/<pid>/stat's utime and stime (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

interface ProcStat {
  readonly pid: number;
  readonly ppid: number;
  /** utime + stime of all the process's threads, in seconds. */
  readonly cpuSeconds: number;
}

function readStat(pid: number): ProcStat | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) may hold spaces and parentheses: fields after it follow the last ')'.
    const rest = text.slice(text.lastIndexOf(")") + 2).split(" ");
    return { pid, ppid: Number(rest[1]), cpuSeconds: (Number(rest[11]) + Number(rest[12])) / TICKS_PER_SECOND };
  } catch {
    return null; // exited between listing and reading
  }
}

/** The process `root` and all its live descendants. */
export function processTree(root: number): number[] {
  const stats = readdirSync("/proc").filter((d) => /^\d+$/.test(d)).map((d) => readStat(Number(d))).filter((s): s is ProcStat => s !== null);
  const tree = [root];
  for (let added = true; added; ) {
    added = false;
    for (const s of stats) {
      if (!tree.includes(s.pid) && tree.includes(s.ppid)) {
        tree.push(s.pid);
        added = true;
      }
    }
  }
  return tree;
}

/** CPU seconds (user + system) used so far by the tree under `root`. */
export function treeCpuSeconds(root: number): number {
  let total = 0;
  for (const pid of processTree(root)) total += readStat(pid)?.cpuSeconds ?? 0;
  return total;
}

/** Peak resident set (VmHWM) summed over the tree under `root`, in bytes. */
export function treePeakRssBytes(root: number): number {
  let total = 0;
  for (const pid of processTree(root)) {
    try {
      const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
      if (m) total += Number(m[1]) * 1024;
    } catch {
      // exited
    }
  }
  return total;
}

/**
 * The Kafka broker's pid, so each run can report the broker's CPU: the project's broker knows it
 * (`scripts/kafka.sh pid`); a broker started elsewhere (KAFKA_BOOTSTRAP_SERVERS) is found as the
 * one local process running `kafka.Kafka`. Null when there is none or more than one.
 */
export function brokerPid(fromScript: () => string | null): number | null {
  const known = fromScript();
  if (known !== null && /^\d+$/.test(known.trim())) return Number(known.trim());
  const brokers = readdirSync("/proc")
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        return readFileSync(`/proc/${d}/cmdline`, "utf8").split("\0").includes("kafka.Kafka");
      } catch {
        return false;
      }
    });
  return brokers.length === 1 ? Number(brokers[0]) : null;
}

/** CPU seconds used so far by one process (all its threads); NaN when it is gone or unknown. */
export function processCpuSeconds(pid: number | null): number {
  return pid === null ? Number.NaN : (readStat(pid)?.cpuSeconds ?? Number.NaN);
}
