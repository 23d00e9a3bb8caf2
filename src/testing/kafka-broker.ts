// Faults of the test broker, for tests of what Sluice does when Kafka fails (files named *.faults.test.ts: the
// `faults` vitest project runs them one at a time, after every other test, because they stop the shared broker).
// Each call runs scripts/kafka.sh, which knows the broker's process; KAFKA_PORT selects the broker as it does for
// the kafka project's global setup.
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const script = fileURLToPath(new URL("../../scripts/kafka.sh", import.meta.url));
const run = promisify(execFile);

/** What the broker's process is doing: answering, stopped by SIGSTOP, or not there at all. */
export type BrokerProcessState = "running" | "frozen" | "gone";

async function kafkaSh(command: string): Promise<string> {
  if (process.env.KAFKA_BOOTSTRAP_SERVERS?.trim()) {
    throw new Error(`cannot ${command} the broker at KAFKA_BOOTSTRAP_SERVERS: fault tests need the project's own broker (unset it)`);
  }
  try {
    const { stdout } = await run("bash", [script, command], { encoding: "utf8", timeout: 180_000 });
    return stdout.trim();
  } catch (e) {
    const { stderr, message } = e as { stderr?: string; message: string };
    throw new Error(`scripts/kafka.sh ${command} failed: ${stderr?.trim() || message}`);
  }
}

/** The state of process `pid`, read from /proc (state T is stopped; Z, or no such process, is gone). */
export function processState(pid: number): BrokerProcessState {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return "gone";
  }
  const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
  return state === "T" || state === "t" ? "frozen" : state === "Z" || state === "X" ? "gone" : "running";
}

export const kafkaBroker = {
  /** The running broker's pid. */
  async pid(): Promise<number> {
    return Number(await kafkaSh("pid"));
  },
  /** SIGKILL: the broker dies without any cleanup (its data stays); resolves once the process is gone. */
  async kill(): Promise<number> {
    return Number((await kafkaSh("kill")).split("\n").at(-1));
  },
  /** SIGSTOP: the broker's process and sockets stay, nothing answers. */
  async freeze(): Promise<number> {
    return Number(await kafkaSh("freeze"));
  },
  /** SIGCONT: a frozen broker carries on. */
  async thaw(): Promise<number> {
    return Number(await kafkaSh("thaw"));
  },
  /** Starts the broker on its data (after a kill) and waits until it answers; a no-op when it runs. */
  async start(): Promise<number> {
    await kafkaSh("start");
    return this.pid();
  },
  /** Thaws or restarts the broker as needed, so that it answers again (for afterEach/afterAll). */
  async restore(): Promise<void> {
    const pid = await this.pid().catch(() => null);
    if (pid !== null && processState(pid) === "frozen") await this.thaw();
    await this.start();
  },
};
