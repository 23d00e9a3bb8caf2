/**
 * What every bench runner does first: start the project's Kafka broker (or use the one
 * KAFKA_BOOTSTRAP_SERVERS names) and find its pid for broker CPU, set up what its runs share, and
 * describe the machine and the versions under test for the results.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { Session } from "../../src/index.js";
import { closeClusters } from "../../src/sources/kafka/kafka-cluster.js";
import { brokerPid } from "./proc.js";
import type { Environment } from "./report.js";
import { ROOT } from "./systems.js";
import { Topics } from "./topics.js";
import { adsJsonLines } from "./workloads.js";

/**
 * A broker named by KAFKA_BOOTSTRAP_SERVERS is used as it is; otherwise the project's own is
 * started (a no-op when it runs). Returns the broker's pid, or null when it cannot be found.
 */
export function startBroker(log: (line: string) => void): number | null {
  if (process.env.KAFKA_BOOTSTRAP_SERVERS === undefined) {
    execFileSync("bash", [path.join(ROOT, "scripts/kafka.sh"), "start"], { stdio: "inherit", env: { ...process.env, KAFKA_HEAP_OPTS: process.env.KAFKA_HEAP_OPTS ?? "-Xms1g -Xmx2g" } });
  }
  const broker = brokerPid(() => {
    const r = spawnSync("bash", [path.join(ROOT, "scripts/kafka.sh"), "pid"], { encoding: "utf8" });
    return r.status === 0 ? r.stdout : null;
  });
  log(broker === null ? "broker pid not found: broker CPU is not reported" : `broker pid ${broker}`);
  return broker;
}

/** What a command prints, stdout and stderr together (`java -version` writes to stderr). */
function sh(cmd: string, args: string[]): string {
  const r = spawnSync(cmd, args, { encoding: "utf8" });
  return `${r.stdout ?? ""}${r.stderr ?? ""}`.trim();
}

function pomProperty(pom: string, name: string): string {
  const m = new RegExp(`<${name.replace(/\./g, "\\.")}>([^<]+)<`).exec(readFileSync(path.join(ROOT, pom), "utf8"));
  return m?.[1] ?? "?";
}

/** Sluice's version and the commit of the sources the runs load, so that runs of different code are told apart. */
function sluiceVersion(): string {
  const version = (JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as { version: string }).version;
  const commit = sh("git", ["-C", ROOT, "rev-parse", "--short", "HEAD"]);
  if (!/^[0-9a-f]{7,}$/.test(commit)) return version;
  const changed = sh("git", ["-C", ROOT, "status", "--porcelain", "--", "src", "bench/jobs"]) !== "";
  return `${version} (commit ${commit}${changed ? ", with uncommitted changes" : ""})`;
}

export function environment(): Environment {
  const pkg = (name: string) => (JSON.parse(readFileSync(path.join(ROOT, "node_modules", name, "package.json"), "utf8")) as { version: string }).version;
  const cpu = os.cpus();
  return {
    machine: `${cpu.length} × ${cpu[0]?.model ?? "cpu"}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, ${os.type()} ${os.release()}`,
    versions: {
      Sluice: sluiceVersion(),
      Node: process.version,
      Java: sh("java", ["-version"]).split("\n")[0] ?? "?",
      "Kafka broker": readFileSync(path.join(ROOT, "scripts/kafka/pom.xml"), "utf8").match(/<kafka\.version>([^<]+)</)?.[1] ?? "?",
      "Spark Structured Streaming": pomProperty("bench/peers/spark/pom.xml", "spark.version"),
      "Kafka Streams": pomProperty("bench/peers/kstreams/pom.xml", "kafka.version"),
      kafkajs: pkg("kafkajs"),
      "apache-arrow": pkg("apache-arrow"),
    },
  };
}

/** What a runner's runs share: a scratch folder, W1's ads file in it, the topic admin, a session that reads outputs. */
export interface BenchContext {
  readonly work: string;
  readonly ads: string;
  readonly topics: Topics;
  readonly session: Session;
}

/** Runs `body` with a fresh context, and releases it (the scratch folder too) however `body` ends. */
export async function withBenchContext<T>(name: string, bootstrap: string, body: (context: BenchContext) => Promise<T>): Promise<T> {
  const work = mkdtempSync(path.join(os.tmpdir(), `sluice-${name}-`));
  const ads = path.join(work, "ads.jsonl");
  writeFileSync(ads, adsJsonLines());
  const topics = new Topics(bootstrap);
  const session = new Session({ workers: 1 });
  try {
    return await body({ work, ads, topics, session });
  } finally {
    await session.stop();
    await topics.close();
    await closeClusters();
    rmSync(work, { recursive: true, force: true });
  }
}
