// The transformWithState benchmark's processor (bench/transform-with-state.ts): Spark's
// sessionization example as arbitrary stateful processing. Each user's clicks count towards a
// session that an event-time timer closes once the watermark passes the last click plus the gap;
// the timer then emits the session and clears the user's state. Imported by URL and export name,
// as every processor is.
import type { StatefulProcessor, StatefulProcessorHandle, TimerValues, ValueState } from "../../src/index.js";

export type Click = { user: number; time: Date };
export type ClickSession = { user: number; start: Date; end: Date; clicks: number };

export class ClickSessions implements StatefulProcessor<{ user: number }, Click, ClickSession> {
  private clicks!: ValueState<number>;
  private start!: ValueState<number>;
  private last!: ValueState<number>;
  private handle!: StatefulProcessorHandle;

  constructor(private readonly args: { readonly gapMs: number }) {}

  init(handle: StatefulProcessorHandle): void {
    this.handle = handle;
    this.clicks = handle.getValueState<number>("clicks");
    this.start = handle.getValueState<number>("start");
    this.last = handle.getValueState<number>("last");
  }

  handleInputRows(_key: { user: number }, rows: readonly Click[], _timers: TimerValues): ClickSession[] {
    const before = this.last.get();
    let last = before ?? -Infinity;
    let start = this.start.get() ?? Infinity;
    for (const r of rows) {
      const t = r.time.getTime();
      if (t > last) last = t;
      if (t < start) start = t;
    }
    this.clicks.update((this.clicks.get() ?? 0) + rows.length);
    this.start.update(start);
    this.last.update(last);
    if (before !== undefined) this.handle.deleteTimer(before + this.args.gapMs);
    this.handle.registerTimer(last + this.args.gapMs);
    return [];
  }

  handleExpiredTimer(key: { user: number }): ClickSession[] {
    const session = { user: key.user, start: new Date(this.start.get()!), end: new Date(this.last.get()!), clicks: this.clicks.get()! };
    this.clicks.clear();
    this.start.clear();
    this.last.clear();
    return [session];
  }
}
