import { type ProgressCounts, type ProgressTotals, renderProgressLine } from "./console-progress-line.js";

/** Where the bar is drawn: stderr in a terminal; any stream that says it is a terminal in tests. */
export interface ProgressTerminal {
  readonly isTTY?: boolean;
  /** The terminal's width; without it the COLUMNS variable, else 80 columns, as Spark assumes. */
  readonly columns?: number;
  write(text: string): unknown;
}

/** The session's settings when a piece of work begins (spark.ui.showConsoleProgress, spark.ui.consoleProgress.update.interval). */
export interface ConsoleProgressSettings {
  readonly enabled: boolean;
  readonly updateIntervalMs: number;
}

/** Spark's ConsoleProgressBar shows a stage only once it has run this long: short work stays silent. */
export const FIRST_DELAY_MS = 500;
const DEFAULT_COLUMNS = 80;
/** Spark shows at most three stages on its line; so does Sluice. */
const MAX_SHOWN = 3;
/** Back to the line's start and clear it: the bar erased, the cursor where the bar began. */
export const ERASE_LINE = "\r\x1b[K";

/** A piece of work the bar follows: counters bumped as its tasks complete, never per row. */
export interface ProgressWork {
  /** Adds what a completed task (or batch) read. */
  advance(delta: Partial<ProgressCounts>): void;
  /** The work is over (done, failed or stopped): it leaves the bar. Safe to call twice. */
  end(): void;
  /** False when nothing will be drawn (not a terminal, or turned off): the caller may skip measuring totals. */
  readonly shown: boolean;
}

/** What work gets when no bar is drawn: counting costs nothing. */
const UNSHOWN: ProgressWork = { advance() {}, end() {}, shown: false };

class TrackedWork implements ProgressWork {
  readonly shown = true;
  readonly done: ProgressCounts = { files: 0, bytes: 0, rows: 0, tasks: 0 };

  constructor(
    readonly label: string,
    readonly total: ProgressTotals,
    readonly startedMs: number,
    private readonly onEnd: (w: TrackedWork) => void,
  ) {}

  advance(d: Partial<ProgressCounts>): void {
    this.done.files += d.files ?? 0;
    this.done.bytes += d.bytes ?? 0;
    this.done.rows += d.rows ?? 0;
    this.done.tasks += d.tasks ?? 0;
  }

  end(): void {
    this.onEnd(this);
  }
}

/**
 * Spark's ConsoleProgressBar for Sluice: one line on stderr for the long reads in flight (static
 * actions, availableNow drains), drawn only when stderr is a terminal and
 * spark.ui.showConsoleProgress is on, for work that has run at least 500 ms, redrawn every
 * spark.ui.consoleProgress.update.interval when it changed, erased when the work ends.
 *
 * The timer is unref'd (a bar never keeps the process alive) and runs only while work is in
 * flight. Other console output Sluice writes (the console sink, listener callbacks) goes through
 * `aside`, which erases the bar first and redraws it after, so a table never starts mid-bar.
 */
export class ConsoleProgressBar {
  private readonly works = new Set<TrackedWork>();
  private timer: ReturnType<typeof setInterval> | null = null;
  /** The line on the terminal now; "" when nothing is drawn. */
  private drawn = "";
  /** Where the current timer draws; fixed while work is in flight. */
  private terminal: ProgressTerminal | null = null;

  constructor(
    private readonly output: () => { readonly terminal: ProgressTerminal; readonly firstDelayMs: number },
    private readonly settings: () => ConsoleProgressSettings,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether work begun now would be drawn: worth measuring its total for (a drain's backlog). */
  willDraw(): boolean {
    return this.settings().enabled && (this.terminal ?? this.output().terminal).isTTY === true;
  }

  /** Follows a piece of work from now on; the bar shows it once it has run long enough. */
  begin(label: string, total: ProgressTotals = {}): ProgressWork {
    if (!this.willDraw()) return UNSHOWN;
    const { updateIntervalMs } = this.settings();
    const terminal = this.terminal ?? this.output().terminal;
    const work = new TrackedWork(label, total, this.now(), (w) => this.finish(w));
    this.works.add(work);
    if (this.timer === null) {
      this.terminal = terminal;
      this.timer = setInterval(() => this.refresh(), Math.max(1, updateIntervalMs));
      this.timer.unref();
    }
    return work;
  }

  /** Runs `print` (which writes other console output) with the bar erased, then redraws it. */
  aside<T>(print: () => T): T {
    if (this.drawn === "") return print();
    this.erase();
    try {
      return print();
    } finally {
      this.refresh();
    }
  }

  private finish(work: TrackedWork): void {
    if (!this.works.delete(work)) return;
    if (this.works.size > 0) return this.refresh();
    clearInterval(this.timer!);
    this.timer = null;
    this.erase();
    this.terminal = null;
  }

  private refresh(): void {
    const terminal = this.terminal;
    if (terminal === null) return;
    const now = this.now();
    const { firstDelayMs } = this.output();
    const visible = [...this.works].filter((w) => now - w.startedMs >= firstDelayMs).slice(0, MAX_SHOWN);
    if (visible.length === 0) return this.erase();
    // Stop one column short of the edge, so that no terminal wraps the line.
    const columns = terminal.columns || Number(process.env.COLUMNS) || DEFAULT_COLUMNS;
    const width = Math.floor((columns - 1) / visible.length);
    const line = visible
      .map((w) => renderProgressLine({ label: w.label, done: w.done, total: w.total, elapsedMs: now - w.startedMs }, width))
      .join("");
    if (line === this.drawn) return;
    terminal.write(`\r${line}\x1b[K`);
    this.drawn = line;
  }

  private erase(): void {
    if (this.drawn === "" || this.terminal === null) return;
    this.terminal.write(ERASE_LINE);
    this.drawn = "";
  }
}
