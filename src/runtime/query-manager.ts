import { AnalysisError } from "../errors/errors.js";
import { ListenerBus, type StreamingQueryListener } from "./listener.js";
import type { StreamingQuery } from "./streaming-query.js";

/** Spark's `StreamingQueryManager`: the session's active queries and listeners. */
export class StreamingQueryManager {
  /** @internal */
  readonly bus: ListenerBus;
  private readonly queries = new Map<string, StreamingQuery>();
  private readonly names = new Map<string, StreamingQuery>();

  /** `around` wraps every delivery to listeners (the session's progress bar erases itself meanwhile). */
  constructor(around?: (deliver: () => void) => void) {
    this.bus = new ListenerBus(around);
  }

  get active(): StreamingQuery[] {
    return [...this.queries.values()].filter((q) => q.isActive);
  }

  /** The query with this id (the newest run, if it was restarted). */
  get(id: string): StreamingQuery | undefined {
    return [...this.queries.values()].reverse().find((q) => q.id === id);
  }

  addListener(listener: StreamingQueryListener): void {
    this.bus.add(listener);
  }

  removeListener(listener: StreamingQueryListener): void {
    this.bus.remove(listener);
  }

  /** Waits until any active query ends (rejects if it failed). */
  async awaitAnyTermination(): Promise<void> {
    const active = this.active;
    if (active.length === 0) return;
    await Promise.race(active.map((q) => q.awaitTermination()));
  }

  /** @internal A name may be used by one active query at a time, as in Spark. */
  reserveName(name: string | null): void {
    if (name && this.names.get(name)?.isActive) {
      throw new AnalysisError(`Cannot start query with name ${name} as a query with that name is already active in this session`);
    }
  }

  /** @internal */
  register(query: StreamingQuery): void {
    this.queries.set(query.runId, query);
    if (query.name) this.names.set(query.name, query);
  }

  async stopAll(): Promise<void> {
    await Promise.all(this.active.map((q) => q.stop()));
  }
}
