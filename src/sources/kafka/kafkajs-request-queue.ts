import { createRequire } from "node:module";

/**
 * kafkajs 2.2.4's request queue (src/network/requestQueue/index.js) re-arms a timer after every
 * check of its pending requests, whether any wait or not, and with none waiting and no throttle
 * the timer's delay is negative: every open broker connection runs a 1 ms timer loop (kafkajs
 * issues #1556 and #1704, unfixed in its last release). A Sluice worker holds several connections
 * (a task's fetches, a real-time task's tails, the Kafka sink's producer), so the loops took ~5% of
 * a real-time worker's CPU and woke its event loop a thousand times a second per connection.
 *
 * `schedulePendingCheck` takes the place of kafkajs's `scheduleCheckPendingRequests`: it arms the
 * timer only while a request waits, for the end of the broker's throttle, or after kafkajs's own
 * 10 ms when the request waits for an in-flight slot (a fulfilled request checks the queue
 * anyway). A request pushed onto an empty queue arms it again, as in kafkajs.
 */

/** kafkajs's interval for re-checking requests that wait for an in-flight slot. */
const PENDING_CHECK_INTERVAL_MS = 10;

/** What the check reads of kafkajs's RequestQueue. */
export interface PendingRequests {
  readonly pending: readonly unknown[];
  readonly throttledUntil: number;
  throttleCheckTimeoutId: ReturnType<typeof setTimeout> | null;
  checkPendingRequests(): void;
}

export function schedulePendingCheck(this: PendingRequests): void {
  if (this.throttleCheckTimeoutId || this.pending.length === 0) return;
  const untilUnthrottled = this.throttledUntil - Date.now();
  this.throttleCheckTimeoutId = setTimeout(
    () => {
      this.throttleCheckTimeoutId = null;
      this.checkPendingRequests();
    },
    untilUnthrottled > 0 ? untilUnthrottled : PENDING_CHECK_INTERVAL_MS,
  );
}

const require = createRequire(import.meta.url);
const RequestQueue = require("kafkajs/src/network/requestQueue/index.js") as { prototype: { scheduleCheckPendingRequests: unknown } };
RequestQueue.prototype.scheduleCheckPendingRequests = schedulePendingCheck;

/** Whether kafkajs's request queues schedule their checks with `schedulePendingCheck`. */
export const mendsKafkajsRequestQueue = (): boolean => RequestQueue.prototype.scheduleCheckPendingRequests === schedulePendingCheck;
