// The shared scenario suite's harness: one streaming query, written once against the DataFrame API, run in an
// embedded session and in a remote one (Spark Connect) on the same input files; after every step both memory
// tables must be the rows the scenario states. A scenario is a specification of Sluice's answers and a check
// that Spark gives the same ones.
import { expect } from "vitest";
import type { DataFrame } from "../api/data-frame.js";
import { Session } from "../api/session.js";
import type { StreamingQuery } from "../runtime/streaming-query.js";
import { remoteSession } from "./spark-connect.js";
import { tempDir } from "./temp-dir.js";
import { sorted } from "./sorted-rows.js";

export type Row = Record<string, unknown>;
export type OutputMode = "append" | "update" | "complete";

export interface Step {
  /** Rows for the first input folder, one JSON-lines file (one file per step: one micro-batch per step). */
  readonly add?: readonly Row[];
  /** Rows per input folder (for queries over several streams), one file in each folder given rows. */
  readonly addTo?: readonly (readonly Row[] | undefined)[];
  /** The memory sink's whole table once the step's data is processed (in any order: compared sorted). */
  readonly table: readonly Row[];
}

export interface StreamScenario {
  /** Names the query (its memory table), with "_embedded" or "_remote" after it. */
  readonly name: string;
  /** Input folders the query reads (default 1). */
  readonly inputs?: number;
  /** The query over the input folders (read them with `option("maxFilesPerTrigger", 1)` where batch boundaries matter). */
  readonly query: (session: Session, inputs: readonly string[]) => DataFrame<any>;
  readonly outputMode: OutputMode;
  readonly steps: readonly Step[];
  /** A figure of the query's progress after the last step: the same on both backends, and `expected`. */
  readonly progress?: { readonly read: (q: StreamingQuery) => unknown; readonly expected: unknown };
}

export interface Answers {
  /** The sorted table after each step. */
  readonly tables: Row[][];
  readonly progress: unknown;
}

/** How long the remote progress (delivered by the server's listener bus) may lag behind processAllAvailable. */
const PROGRESS_WAIT_MS = 20_000;

/**
 * Runs `scenario` in `session` and returns its tables after each step. A remote run waits (a while) for its
 * progress figure to become `progressTarget` (the embedded run's), since the server reports progress after the batch.
 */
export async function runScenario(session: Session, scenario: StreamScenario, backend: "embedded" | "remote", progressTarget?: unknown): Promise<Answers> {
  const inputs = Array.from({ length: scenario.inputs ?? 1 }, () => tempDir("sluice-parity-in-"));
  const checkpoint = tempDir("sluice-parity-ckpt-");
  const name = `${scenario.name}_${backend}`;
  let query: StreamingQuery | null = null;
  try {
    query = scenario
      .query(
        session,
        inputs.map((d) => d.dir),
      )
      .writeStream.outputMode(scenario.outputMode)
      .format("memory")
      .queryName(name)
      .option("checkpointLocation", checkpoint.path("checkpoint"))
      .start();
    const tables: Row[][] = [];
    for (const [i, step] of scenario.steps.entries()) {
      const file = `step-${String(i).padStart(3, "0")}.jsonl`;
      const perInput = step.addTo ?? [step.add];
      perInput.forEach((rows, input) => {
        if (rows !== undefined && rows.length > 0) inputs[input]!.write(file, rows);
      });
      await query.processAllAvailable();
      tables.push(sorted(await session.table(name).collect()));
    }
    let progress: unknown = undefined;
    if (scenario.progress) {
      const { read } = scenario.progress;
      const q = query;
      // The remote progress arrives through the listener bus, a moment after the batch.
      if (backend === "remote") {
        await expect.poll(() => read(q), { timeout: PROGRESS_WAIT_MS, message: `${scenario.name}: Spark's progress differs from the embedded engine's` }).toEqual(progressTarget);
      }
      progress = read(q);
    }
    return { tables, progress };
  } finally {
    await query?.stop();
    for (const d of [...inputs, checkpoint]) d.remove();
  }
}

/**
 * Runs `scenario` embedded (`new Session({ workers: 0 })`) and on the Spark Connect server, then asserts that
 * both gave the same tables after every step (and the same progress figure), and that those are the scenario's.
 */
export async function runBoth(scenario: StreamScenario): Promise<void> {
  const embeddedSession = new Session({ workers: 0 });
  let embedded: Answers;
  try {
    embedded = await runScenario(embeddedSession, scenario, "embedded");
  } finally {
    await embeddedSession.stop();
  }
  const session = remoteSession();
  let remote: Answers;
  try {
    remote = await runScenario(session, scenario, "remote", embedded.progress);
  } finally {
    await session.stop();
  }
  expect(remote, `${scenario.name}: Spark's answers differ from the embedded engine's`).toEqual(embedded);
  expect(embedded.tables, `${scenario.name}: the tables after each step`).toEqual(scenario.steps.map((s) => sorted([...s.table])));
  if (scenario.progress) expect(embedded.progress, `${scenario.name}: progress`).toEqual(scenario.progress.expected);
}

/** Input rows of (key, time in seconds): the event-time streams of most scenarios. */
export const events = (...kt: [string, number][]) => kt.map(([key, time]) => ({ key, time }));

/**
 * Each batch that read rows, as its progress reports it: rows read, the watermark in force, and the rows a
 * stateful operator dropped as late (batches without data, and Spark's idle reports, are left out).
 */
export function batchFigures(q: StreamingQuery): { rows: number; watermark: string | undefined; dropped: number }[] {
  return q.recentProgress
    .filter((p) => p.numInputRows > 0)
    .map((p) => ({ rows: p.numInputRows, watermark: p.eventTime.watermark, dropped: p.stateOperators.reduce((n, o) => n + o.numRowsDroppedByWatermark, 0) }));
}

/** The ISO text of `s` seconds after the epoch, as progress reports a watermark. */
export const isoSeconds = (s: number) => new Date(s * 1000).toISOString();

/**
 * The names (else ids) of the queries active in the remote session's server-side session, as the server
 * answers StreamingQueryManager.active: what runs on the server, whatever this process believes.
 */
export async function activeOnServer(session: Session): Promise<string[]> {
  // The session's own client: a server-side session's queries are visible to that session only.
  const backend = session.remoteBackend;
  if (!backend) throw new Error("activeOnServer needs a remote session");
  return backend.activeOnServer();
}
