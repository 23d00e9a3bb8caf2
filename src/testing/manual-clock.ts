import type { Clock, Sleep } from "../runtime/clock.js";

/**
 * A clock that moves only when a test advances it (Spark's StreamManualClock): a query started
 * with it triggers when its trigger interval has passed on this clock, and its batch timestamps,
 * and so its processing-time timers and TTL, read this clock's time.
 */
export class ManualClock implements Clock {
  private time: number;
  private readonly sleepers = new Set<{ readonly until: number; readonly wake: () => void }>();

  constructor(startMs = 0) {
    this.time = startMs;
  }

  now(): number {
    return this.time;
  }

  sleep(ms: number): Sleep {
    let sleeper!: { until: number; wake: () => void };
    const done = new Promise<void>((resolve) => {
      sleeper = { until: this.time + ms, wake: resolve };
    });
    if (ms <= 0) sleeper.wake();
    else this.sleepers.add(sleeper);
    return {
      done,
      cancel: () => {
        this.sleepers.delete(sleeper);
        sleeper.wake();
      },
    };
  }

  /** Moves time on by `ms`, waking every wait that ends by then. */
  advance(ms: number): void {
    if (!(ms >= 0)) throw new Error(`a manual clock moves forward: advance(${ms})`);
    this.time += ms;
    for (const s of [...this.sleepers]) {
      if (s.until <= this.time) {
        this.sleepers.delete(s);
        s.wake();
      }
    }
  }
}
