import type { StreamingQueryException } from "../errors/errors.js";
import type { StreamingQueryProgress } from "./progress.js";

export interface QueryStartedEvent {
  readonly id: string;
  readonly runId: string;
  readonly name: string | null;
  readonly timestamp: string;
}
export interface QueryProgressEvent {
  readonly progress: StreamingQueryProgress;
}
/** The query is waiting for data: a trigger found nothing new (Spark 3.5's onQueryIdle). */
export interface QueryIdleEvent {
  readonly id: string;
  readonly runId: string;
  readonly timestamp: string;
}
export interface QueryTerminatedEvent {
  readonly id: string;
  readonly runId: string;
  /** The error that stopped the query, or null when it was stopped or finished. */
  readonly exception: StreamingQueryException | null;
}

/** Spark's `StreamingQueryListener`; every callback is optional. Errors thrown by a listener are logged and ignored. */
export interface StreamingQueryListener {
  onQueryStarted?(event: QueryStartedEvent): void;
  onQueryProgress?(event: QueryProgressEvent): void;
  onQueryIdle?(event: QueryIdleEvent): void;
  onQueryTerminated?(event: QueryTerminatedEvent): void;
}

/** Delivers events to listeners, isolating the query from a listener that throws. */
export class ListenerBus {
  private readonly listeners = new Set<StreamingQueryListener>();

  constructor(private readonly around: (deliver: () => void) => void = (deliver) => deliver()) {}

  add(l: StreamingQueryListener): void {
    this.listeners.add(l);
  }

  remove(l: StreamingQueryListener): void {
    this.listeners.delete(l);
  }

  post<K extends keyof StreamingQueryListener>(kind: K, event: Parameters<NonNullable<StreamingQueryListener[K]>>[0]): void {
    if (this.listeners.size > 0) this.around(() => this.deliver(kind, event));
  }

  private deliver<K extends keyof StreamingQueryListener>(kind: K, event: Parameters<NonNullable<StreamingQueryListener[K]>>[0]): void {
    for (const l of this.listeners) {
      const fn = l[kind] as ((e: typeof event) => void) | undefined;
      if (!fn) continue;
      try {
        fn.call(l, event);
      } catch (e) {
        console.error(`streaming query listener ${kind} failed:`, e);
      }
    }
  }
}
