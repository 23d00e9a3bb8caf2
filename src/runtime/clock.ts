/**
 * The time a query's trigger loop reads and waits on (Spark's triggerClock): batch timestamps,
 * trigger intervals and processing-time timers follow it. The system clock serves every query;
 * tests drive time by hand with testing/manual-clock.ts.
 */
export interface Clock {
  now(): number;
  /** Waits `ms` of this clock's time; `cancel()` ends the wait at once. */
  sleep(ms: number): Sleep;
}

export interface Sleep {
  readonly done: Promise<void>;
  cancel(): void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep(ms) {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let wake!: () => void;
    const done = new Promise<void>((resolve) => {
      wake = resolve;
      timer = setTimeout(resolve, ms);
    });
    return {
      done,
      cancel() {
        clearTimeout(timer);
        wake();
      },
    };
  },
};
