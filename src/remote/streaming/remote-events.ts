import type { SparkConnectClient } from "../client/spark-connect-client.js";
import { StreamingQueryEventType } from "../gen/spark/connect/commands_pb.js";
import type { RemoteStreamingQuery } from "./remote-streaming-query.js";

/** Events kept for queries whose start has not been answered yet. */
const EARLY_EVENTS = 1000;

/**
 * The server's streaming query events for one session, over Spark Connect's listener bus: one
 * long-running, reattachable operation (`add_listener_bus_listener`) whose responses carry each
 * progress, idle and terminated event; they are handed to the query they belong to, which updates
 * what it reports and posts them to the session's listeners.
 */
export class RemoteEvents {
  private readonly queries = new Map<string, RemoteStreamingQuery>();
  private opened: Promise<void> | null = null;
  private readonly abort = new AbortController();
  private running: Promise<void> | null = null;

  constructor(private readonly client: SparkConnectClient) {}

  /** Opens the event stream once; resolves when the server has registered it (so a query started after sees every event). */
  open(): Promise<void> {
    this.opened ??= new Promise<void>((resolve, reject) => {
      let added = false;
      this.running = (async () => {
        try {
          const stream = this.client.execute(
            { opType: { case: "command", value: { commandType: { case: "streamingQueryListenerBusCommand", value: { command: { case: "addListenerBusListener", value: true } } } } } },
            "the listener bus",
            this.abort.signal,
          );
          for await (const r of stream) {
            if (r.responseType.case !== "streamingQueryListenerEventsResult") continue;
            const result = r.responseType.value;
            if (result.listenerBusListenerAdded && !added) {
              added = true;
              resolve();
            }
            for (const e of result.events) this.dispatch(e.eventType, e.eventJson);
          }
        } catch (e) {
          if (!added) reject(e);
          else if (!this.abort.signal.aborted) this.lost(e);
        }
      })();
    });
    return this.opened;
  }

  /** Events whose query is not registered yet: the bus may report a batch before the start's answer arrives. */
  private readonly early: { runId: string; type: StreamingQueryEventType; json: string }[] = [];

  register(query: RemoteStreamingQuery): void {
    this.queries.set(query.runId, query);
    const mine = this.early.filter((e) => e.runId === query.runId);
    this.early.splice(0, this.early.length, ...this.early.filter((e) => e.runId !== query.runId));
    for (const e of mine) this.dispatch(e.type, e.json);
  }

  private dispatch(type: StreamingQueryEventType, json: string): void {
    // Progress events wrap the progress ({"progress": {...}}); the others carry the ids themselves.
    const event = JSON.parse(json) as { runId?: string; progress?: Record<string, unknown>; timestamp?: string; exception?: string | null; errorClassOnException?: string | null };
    const runId = event.runId ?? (event.progress?.["runId"] as string | undefined);
    if (runId === undefined) return;
    const query = this.queries.get(runId);
    if (!query) {
      // Kept until its query registers; bounded, for events of queries this client never started.
      this.early.push({ runId, type, json });
      if (this.early.length > EARLY_EVENTS) this.early.shift();
      return;
    }
    switch (type) {
      case StreamingQueryEventType.QUERY_PROGRESS_EVENT:
        query.onProgress(event.progress ?? {});
        return;
      case StreamingQueryEventType.QUERY_IDLE_EVENT:
        query.onIdle(event);
        return;
      case StreamingQueryEventType.QUERY_TERMINATED_EVENT:
        query.onTerminated(event);
        this.queries.delete(runId);
        return;
    }
  }

  /**
   * The event stream failed for good (its reattach budget spent): the queries learn of their ends
   * from their own calls instead; the status keep-alive asks each one.
   */
  private lost(e: unknown): void {
    console.error(`Spark Connect listener bus of session ${this.client.sessionId} ended: ${(e as Error)?.message ?? String(e)}; query status is polled instead`);
    this.opened = null;
  }

  /** Active queries of this session, for the keep-alive's status calls. */
  active(): RemoteStreamingQuery[] {
    return [...this.queries.values()].filter((q) => q.isActive);
  }

  async close(): Promise<void> {
    this.abort.abort();
    await this.running?.catch(() => undefined);
  }
}
