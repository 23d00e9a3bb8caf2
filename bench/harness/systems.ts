/**
 * The systems under test: how each is built and launched (bench/peers/README.md), and a running
 * instance's lifecycle: wait for its BENCH_STARTED line, measure it from /proc, stop it.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import * as path from "node:path";
import { parseProgressLine, type BenchProgress } from "./batch-progress.js";
import { treeCpuSeconds, treePeakRssBytes } from "./proc.js";
import { systemOf, variantOf, type SystemName, type VariantId } from "./variants.js";

export { SYSTEMS, type SystemName } from "./variants.js";

export const ROOT = path.resolve(import.meta.dirname, "../..");

interface SystemDef {
  readonly launcher: string;
  /**
   * The longest a healthy instance of a variant may go without writing results while it has some
   * due, in a latency run: Kafka Streams forwards window results from its record cache only when
   * it commits (every 30 s by default, 1 s tuned for throughput), the others within a
   * micro-batch or a record.
   */
  readonly resultPauseMs?: Readonly<Record<string, number>>;
  /** A Maven project to build before the first run, when it is out of date. */
  readonly maven?: string;
  /** Compiled by tsc (bench/tsconfig.jobs.json) before the first run, into bench/.build. */
  readonly tsc?: true;
}

const DEFS: Record<SystemName, SystemDef> = {
  sluice: { launcher: path.join(ROOT, "bench/jobs/launch-sluice"), tsc: true },
  spark: { launcher: path.join(ROOT, "bench/peers/spark/launch"), maven: path.join(ROOT, "bench/peers/spark") },
  kstreams: { launcher: path.join(ROOT, "bench/peers/kstreams/launch"), maven: path.join(ROOT, "bench/peers/kstreams"), resultPauseMs: { default: 30_000, throughput: 1_000 } },
  naive: { launcher: path.join(ROOT, "bench/peers/naive/launch"), tsc: true },
};

/** The script that starts `system`'s job (bench/peers/README.md). */
export const launcherOf = (system: SystemName): string => DEFS[system].launcher;

export const resultPauseMs = (id: VariantId): number => DEFS[systemOf(id)].resultPauseMs?.[variantOf(id)] ?? 0;

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs);
  }
  return newest;
}

/**
 * Compiles the JavaScript systems (Sluice's job with src/, the kafkajs loop) into bench/.build, as
 * their users deploy them: run through tsx, each process and each worker thread would spend seconds
 * of CPU transforming TypeScript and in tsx's module hooks, charged to the system under test. tsc
 * builds incrementally, so an unchanged tree takes a few seconds.
 */
export function buildJsSystems(log: (line: string) => void): void {
  const started = Date.now();
  execFileSync(process.execPath, [path.join(ROOT, "node_modules/typescript/bin/tsc"), "-p", path.join(ROOT, "bench/tsconfig.jobs.json")], { stdio: "inherit" });
  log(`compiled the JavaScript systems into bench/.build in ${((Date.now() - started) / 1000).toFixed(0)} s`);
}

/** Builds the systems among `systems` whose sources changed since their last build: the Maven peers, and the JavaScript ones with tsc. */
export function buildPeers(systems: readonly SystemName[], log: (line: string) => void): void {
  if (systems.some((name) => DEFS[name].tsc)) buildJsSystems(log);
  for (const name of systems) {
    const dir = DEFS[name].maven;
    if (!dir) continue;
    const stamp = path.join(dir, "target/lib");
    const sources = Math.max(newestMtime(path.join(dir, "src")), statSync(path.join(dir, "pom.xml")).mtimeMs);
    if (existsSync(stamp) && statSync(stamp).mtimeMs > sources) continue;
    log(`building ${name} with Maven (${path.relative(ROOT, dir)})`);
    const started = Date.now();
    execFileSync("mvn", ["-B", "-q", "-f", path.join(dir, "pom.xml"), "package", "-DskipTests"], { stdio: "inherit" });
    // copy-dependencies leaves target/lib's mtime alone when nothing changed: touch it as the build stamp.
    execFileSync("touch", [stamp]);
    log(`built ${name} in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  }
}

export interface LaunchArgs {
  readonly workload: string;
  readonly bootstrap: string;
  readonly input: string;
  readonly output: string;
  readonly ads: string;
  readonly stateDir: string;
  readonly runId: string;
  /** The variant's name (`default`, `throughput`, ...): what the launcher tunes. */
  readonly variant: string;
  /** Which measurement the process serves: a drain ends at its last result, so commit intervals may differ. */
  readonly phase: "drain" | "latency";
}

/** The launcher's command line for `args` (bench/peers/README.md). */
export function launcherArgv(args: LaunchArgs): string[] {
  const flag = (k: string) => `--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
  return Object.entries(args).flatMap(([k, v]) => [flag(k), String(v)]);
}

/** A running system under test. */
export class RunningSystem {
  private readonly child: ChildProcess;
  private exitInfo: string | null = null;
  private stderrTail: string[] = [];
  /** Stderr after its last newline. */
  private stderrPartial = "";
  /** The batches a Sluice job reported on stderr (harness/batch-progress.ts); none for the peers. */
  readonly batchProgress: BenchProgress[] = [];
  readonly started: Promise<number>;
  private cpuAtStart = 0;

  constructor(
    readonly name: VariantId,
    args: LaunchArgs,
  ) {
    this.child = spawn(launcherOf(systemOf(name)), launcherArgv(args), { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, NODE_OPTIONS: "" } });
    this.child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
      const lines = (this.stderrPartial + chunk).split("\n");
      this.stderrPartial = lines.pop()!;
      for (const line of lines.filter(Boolean)) {
        const progress = parseProgressLine(line);
        if (progress) this.batchProgress.push(progress);
        else this.stderrTail.push(line);
      }
      if (this.stderrTail.length > 40) this.stderrTail = this.stderrTail.slice(-40);
    });
    this.child.on("exit", (code, signal) => (this.exitInfo = `exited with ${signal ?? `code ${code}`}`));
    this.started = new Promise((resolve, reject) => {
      let buffered = "";
      this.child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
        buffered += chunk;
        const m = /BENCH_STARTED (\d+)/.exec(buffered);
        if (m) {
          this.cpuAtStart = treeCpuSeconds(this.pid);
          resolve(Number(m[1]));
          buffered = "";
        }
      });
      this.child.on("exit", () => reject(new Error(`${name} ${this.exitInfo} before starting: ${this.lastErrors.split("\n").slice(-3).join(" / ")}`)));
    });
    this.started.catch(() => {});
  }

  /** The BENCH_STARTED time; rejects when the line has not come within `ms` (the timer is cleared either way, so it never holds the runner's exit). */
  async startedWithin(ms: number): Promise<number> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no BENCH_STARTED line within ${ms / 1000} s`)), ms);
    });
    try {
      return await Promise.race([this.started, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  get pid(): number {
    return this.child.pid!;
  }

  /** Null while running; why it stopped otherwise. */
  get exited(): string | null {
    return this.exitInfo;
  }

  get lastErrors(): string {
    return [...this.stderrTail, this.stderrPartial].filter(Boolean).slice(-15).join("\n");
  }

  /** CPU seconds used since the BENCH_STARTED line. */
  cpuSinceStart(): number {
    return treeCpuSeconds(this.pid) - this.cpuAtStart;
  }

  peakRssBytes(): number {
    return treePeakRssBytes(this.pid);
  }

  /** SIGTERM, then SIGKILL after 10 s; resolves when the process is gone. */
  async stop(): Promise<void> {
    if (this.exitInfo !== null) return;
    const gone = new Promise<void>((resolve) => this.child.once("exit", () => resolve()));
    this.child.kill("SIGTERM");
    const timer = setTimeout(() => this.child.kill("SIGKILL"), 10_000);
    await gone;
    clearTimeout(timer);
  }
}
