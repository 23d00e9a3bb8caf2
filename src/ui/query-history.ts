import type { QueryProgressEvent, QueryStartedEvent, QueryTerminatedEvent, StreamingQueryListener } from "../runtime/listener.js";
import type { StreamingQueryProgress } from "../runtime/progress.js";

/** A run's state as the queries page shows it (Spark's RUNNING, FINISHED, FAILED). */
export type QueryRunStatus = "RUNNING" | "FINISHED" | "FAILED";

/** One run of a query, as the UI keeps it: Spark's StreamingQueryUIData. */
export interface QueryRun {
  readonly id: string;
  readonly runId: string;
  readonly name: string | null;
  /** When the run started, epoch milliseconds. */
  readonly startTimestamp: number;
  endTimestamp: number | null;
  status: QueryRunStatus;
  /** The message of the error that stopped it, or null. */
  exception: string | null;
  /** The plan as `explain()` shows it, when the query is known to the session. */
  readonly plan: string | null;
  /** The latest progress reports, oldest first, at most `retainedProgressUpdates`. */
  readonly progress: StreamingQueryProgress[];
}

export interface QueryHistoryLimits {
  /** Progress reports kept per run (spark.sql.streaming.ui.retainedProgressUpdates). */
  readonly retainedProgressUpdates: number;
  /** Finished runs kept (spark.sql.streaming.ui.retainedQueries). */
  readonly retainedQueries: number;
}

/** What the history reads of a StreamingQuery. */
export interface KnownQuery {
  readonly name: string | null;
  explain(): string;
}

/** What a watcher of one run hears: a new progress report, or the end of the run. */
export type RunUpdate = { readonly kind: "progress"; readonly progress: StreamingQueryProgress } | { readonly kind: "terminated"; readonly run: QueryRun };
export type RunWatcher = (update: RunUpdate) => void;

/**
 * The UI's memory of the session's queries, as Spark's StreamingQueryStatusListener: per run its
 * start, status, latest progress reports and error, and the finished runs up to a limit. It is a
 * listener, called inside the batch loop, so every callback does constant work: append, trim, and
 * hand the report to the run's watchers (the open pages' event streams).
 */
export class QueryHistory implements StreamingQueryListener {
  private readonly runs = new Map<string, QueryRun>();
  private readonly watchers = new Map<string, Set<RunWatcher>>();

  constructor(
    /** Read at every update, so a `conf.set` applies from then on. */
    private readonly limits: () => QueryHistoryLimits,
    /** The session's query of a run (for its plan and name), if it still knows it. */
    private readonly queryOf: (id: string, runId: string) => KnownQuery | undefined,
  ) {}

  /** Every run kept, active ones first, each group newest first. */
  list(): QueryRun[] {
    const all = [...this.runs.values()].reverse();
    return [...all.filter((r) => r.status === "RUNNING"), ...all.filter((r) => r.status !== "RUNNING")];
  }

  run(runId: string): QueryRun | undefined {
    return this.runs.get(runId);
  }

  /** Calls `watcher` with every update of the run until the returned function is called. */
  watch(runId: string, watcher: RunWatcher): () => void {
    let set = this.watchers.get(runId);
    if (!set) this.watchers.set(runId, (set = new Set()));
    set.add(watcher);
    return () => {
      set.delete(watcher);
      if (set.size === 0 && this.watchers.get(runId) === set) this.watchers.delete(runId);
    };
  }

  onQueryStarted(e: QueryStartedEvent): void {
    this.runOf(e.id, e.runId, e.name, Date.parse(e.timestamp));
  }

  onQueryProgress({ progress }: QueryProgressEvent): void {
    const run = this.runOf(progress.id, progress.runId, progress.name, Date.parse(progress.timestamp));
    run.progress.push(progress);
    const excess = run.progress.length - this.limits().retainedProgressUpdates;
    if (excess > 0) run.progress.splice(0, excess);
    this.tell(run.runId, { kind: "progress", progress });
  }

  onQueryTerminated(e: QueryTerminatedEvent): void {
    // A query that failed while starting never posted onQueryStarted: it is shown all the same.
    const run = this.runOf(e.id, e.runId, null, Date.now());
    run.endTimestamp = Date.now();
    run.status = e.exception ? "FAILED" : "FINISHED";
    run.exception = e.exception ? e.exception.message : null;
    this.tell(run.runId, { kind: "terminated", run });
    this.watchers.delete(run.runId);
    this.dropOldFinished();
  }

  private runOf(id: string, runId: string, name: string | null, startTimestamp: number): QueryRun {
    let run = this.runs.get(runId);
    if (!run) {
      const query = this.queryOf(id, runId);
      const plan = query ? query.explain() : null;
      run = { id, runId, name: name ?? query?.name ?? null, startTimestamp, endTimestamp: null, status: "RUNNING", exception: null, plan, progress: [] };
      this.runs.set(runId, run);
    }
    return run;
  }

  private tell(runId: string, update: RunUpdate): void {
    for (const w of this.watchers.get(runId) ?? []) {
      try {
        w(update);
      } catch (e) {
        console.error("web UI: a page's update failed:", e);
      }
    }
  }

  /** Map order is start order, so the first finished runs met are the oldest. */
  private dropOldFinished(): void {
    const finished = [...this.runs.values()].filter((r) => r.status !== "RUNNING");
    const excess = finished.length - this.limits().retainedQueries;
    for (let i = 0; i < excess; i++) this.runs.delete(finished[i]!.runId);
  }
}

/** Spark's summary figures of a run, as the queries page lists them. */
export interface QueryRunSummary {
  readonly id: string;
  readonly runId: string;
  readonly name: string | null;
  readonly status: QueryRunStatus;
  readonly startTimestamp: string;
  readonly endTimestamp: string | null;
  /** Milliseconds from the start to the end, or to now while running. */
  readonly durationMs: number;
  /** The id of the latest batch reported, or null before the first. */
  readonly latestBatchId: number | null;
  /** The mean of the retained reports' rates, as Spark's queries page computes them; null before the first. */
  readonly avgInputRowsPerSecond: number | null;
  readonly avgProcessedRowsPerSecond: number | null;
  readonly exception: string | null;
}

export function summarize(run: QueryRun, now = Date.now()): QueryRunSummary {
  const mean = (pick: (p: StreamingQueryProgress) => number): number | null => {
    const figures = run.progress.map(pick).filter(Number.isFinite);
    return figures.length ? figures.reduce((a, b) => a + b, 0) / figures.length : null;
  };
  return {
    id: run.id,
    runId: run.runId,
    name: run.name,
    status: run.status,
    startTimestamp: new Date(run.startTimestamp).toISOString(),
    endTimestamp: run.endTimestamp === null ? null : new Date(run.endTimestamp).toISOString(),
    durationMs: (run.endTimestamp ?? now) - run.startTimestamp,
    latestBatchId: run.progress.at(-1)?.batchId ?? null,
    avgInputRowsPerSecond: mean((p) => p.inputRowsPerSecond),
    avgProcessedRowsPerSecond: mean((p) => p.processedRowsPerSecond),
    exception: run.exception,
  };
}
