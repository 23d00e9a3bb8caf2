// Runs one streaming query in a child process, for tests that need a second process on a checkpoint or a
// process that dies for real (SIGKILL, or a crash point: SLUICE_CRASH_AT, see src/faults/crash-points.ts).
// Run as `node --import tsx child-query.ts '<plan JSON>'`; `startChildQuery` does that and reads the lines the
// child prints on stdout: `STARTED <queryId> <runId>` once the query runs, `BATCH <batchId>` after each batch,
// `DONE` when the query ended by itself.
import type { ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { z } from "zod";
import { Session } from "../api/session.js";
import { runIfMain, spawnPlanChild } from "./plan-child.js";
import { windowedCounts, type WindowedCountsPlan } from "./windowed-counts.js";

export type ChildPlan =
  /** `pageViews`: JSON-lines files of `{ page }` in `input` into a memory sink, until killed. */
  | { readonly kind: "pageViews"; readonly input: string; readonly checkpoint: string }
  /** `windowedCounts` (see testing/recovery.ts): Kafka in, windowed counts out to Kafka or files, until the input is done. */
  | WindowedCountsPlan;

const Click = z.object({ page: z.string() });

/** The pages of the clicks in `input`, appended to the memory table "pages" (stateless). */
export function pageViews(session: Session, input: string, checkpoint: string) {
  return session.readStream.schema(Click).json(input).select("page").writeStream.format("memory").queryName("pages").option("checkpointLocation", checkpoint);
}

async function main(plan: ChildPlan): Promise<void> {
  const session =
    plan.kind === "windowedCounts"
      ? new Session({ workers: plan.workers, minBatchesToRetain: plan.minBatchesToRetain, minDeltasForSnapshot: plan.minDeltasForSnapshot })
      : new Session({ workers: 0 });
  const query =
    plan.kind === "pageViews"
      ? pageViews(session, plan.input, plan.checkpoint).trigger({ processingTime: "50 milliseconds" }).start()
      : windowedCounts(session, plan).start();
  session.streams.addListener({ onQueryProgress: (e) => process.stdout.write(`BATCH ${e.progress.batchId}\n`) });
  process.stdout.write(`STARTED ${query.id} ${query.runId}\n`);
  if (plan.kind === "windowedCounts" && plan.trigger === "default") {
    // The input is all in Kafka before the child starts: once a trigger finds nothing new, it is done.
    await query.processAllAvailable();
    await query.stop();
  }
  await query.awaitTermination();
  process.stdout.write("DONE\n");
  await session.stop();
}

export interface ChildQuery {
  readonly process: ChildProcess;
  /** Resolves with the first stdout line starting with `prefix`; rejects if the child exits first. */
  line(prefix: string, timeoutMs?: number): Promise<string>;
  /** Resolves when the child has exited, with its exit code or signal and what it wrote to stderr. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
}

export function startChildQuery(plan: ChildPlan, env: Record<string, string> = {}): ChildQuery {
  const child = spawnPlanChild(import.meta.url, plan, env, ["ignore", "pipe", "pipe"]);
  const lines: string[] = [];
  const waiting: { prefix: string; resolve: (l: string) => void }[] = [];
  createInterface({ input: child.stdout! }).on("line", (l) => {
    lines.push(l);
    for (const w of waiting.filter((w) => l.startsWith(w.prefix))) {
      waiting.splice(waiting.indexOf(w), 1);
      w.resolve(l);
    }
  });
  let stderr = "";
  child.stderr!.on("data", (d: Buffer) => (stderr += d.toString("utf8")));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal, stderr })),
  );
  return {
    process: child,
    exited,
    line(prefix, timeoutMs = 30_000) {
      const seen = lines.find((l) => l.startsWith(prefix));
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`the child printed no "${prefix}" line within ${timeoutMs} ms; stderr: ${stderr}`)), timeoutMs);
        waiting.push({
          prefix,
          resolve: (l) => {
            clearTimeout(timer);
            resolve(l);
          },
        });
        void exited.then((e) => {
          clearTimeout(timer);
          reject(new Error(`the child exited (${e.signal ?? e.code}) before printing "${prefix}"; stderr: ${e.stderr}`));
        });
      });
    },
  };
}

runIfMain(import.meta.url, main);
