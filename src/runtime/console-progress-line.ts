/**
 * The text of one progress bar line, as Spark's ConsoleProgressBar draws a stage
 * (`[Stage 3:=====>     (12 + 2) / 40]`), with what a Sluice read knows besides tasks:
 *
 *   [availableNow query clicks: =========>        ] 30% 12/40 files, 1.2M rows, 180 MB, 410k rows/s, ETA 0:07
 *
 * Pure: the console bar (console-progress.ts) owns the terminal, the timer and erasing.
 */

/** What a piece of work amounts to, in the units its inputs know; a unit nobody knows is absent. */
export interface ProgressTotals {
  readonly files?: number;
  readonly bytes?: number;
  readonly rows?: number;
  readonly tasks?: number;
}

/** What is done so far, counted as tasks complete. */
export interface ProgressCounts {
  files: number;
  bytes: number;
  rows: number;
  tasks: number;
}

export interface ProgressState {
  /** What the work is: the action (`collect`), or `availableNow query <name>`. */
  readonly label: string;
  readonly done: Readonly<ProgressCounts>;
  readonly total: ProgressTotals;
  readonly elapsedMs: number;
}

/** The narrowest bar worth drawing; below it, statistics give way first. */
const MIN_BAR = 10;

/**
 * The unit the bar measures: bytes where files are read (files vary in size, bytes do not), then
 * rows (Kafka offsets, in-memory rows), then files, then tasks. Null when no total is known.
 */
function fractionDone(s: ProgressState): number | null {
  for (const unit of ["bytes", "rows", "files", "tasks"] as const) {
    const total = s.total[unit];
    if (total !== undefined && total > 0) return Math.min(1, Math.max(0, s.done[unit] / total));
  }
  return null;
}

/** `950`, `12k`, `1.2M`: two significant figures under ten, whole numbers above. */
export function formatCount(n: number): string {
  return scaled(n, 1000, ["", "k", "M", "B", "T"]);
}

/** Decimal units, as disks and network rates are sold: `950 B`, `1.2 kB`, `180 MB`. */
export function formatBytes(n: number): string {
  return scaled(n, 1000, [" B", " kB", " MB", " GB", " TB"]);
}

function scaled(n: number, base: number, units: readonly string[]): string {
  let value = n;
  let u = 0;
  while (u < units.length - 1 && Math.abs(value) >= base) {
    value /= base;
    u++;
  }
  let text = u === 0 ? String(Math.round(value)) : value < 10 ? value.toFixed(1) : String(Math.round(value));
  // 999.6k rounds to 1000k: show it as 1.0M instead.
  if (u > 0 && u < units.length - 1 && Number(text) >= base) {
    u++;
    text = (value / base).toFixed(1);
  }
  return `${text}${units[u]}`;
}

/** `0:07`, `12:30`, `1:02:03`: what remains, rounded up to the second. */
export function formatEta(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${s}` : `${m}:${s}`;
}

/** A statistic and how much it is worth keeping when the terminal is narrow (higher: kept longer). */
interface Segment {
  readonly text: string;
  readonly keep: number;
}

function segments(s: ProgressState, fraction: number | null): Segment[] {
  const { done, total } = s;
  const of = (n: number, t: number | undefined, fmt: (n: number) => string) => (t === undefined ? fmt(n) : `${fmt(n)}/${fmt(t)}`);
  const out: Segment[] = [];
  if (total.files !== undefined || done.files > 0) out.push({ text: `${of(done.files, total.files, String)} files`, keep: 5 });
  out.push({ text: `${of(done.rows, total.rows, formatCount)} rows`, keep: total.rows !== undefined ? 5 : 3 });
  if (total.bytes !== undefined || done.bytes > 0) out.push({ text: formatBytes(done.bytes), keep: 2 });
  // Tasks are worth showing only when nothing else says how far the work is.
  if (total.tasks !== undefined && total.files === undefined && total.rows === undefined && total.bytes === undefined) {
    out.push({ text: `${done.tasks}/${total.tasks} tasks`, keep: 5 });
  }
  if (s.elapsedMs > 0) out.push({ text: `${formatCount((done.rows * 1000) / s.elapsedMs)} rows/s`, keep: 1 });
  if (fraction !== null && fraction > 0 && fraction < 1) out.push({ text: `ETA ${formatEta((s.elapsedMs * (1 - fraction)) / fraction)}`, keep: 4 });
  return out;
}

/**
 * One work's line, at most `width` characters: the bar fills what the statistics leave. On a
 * narrow terminal the statistics least worth keeping go first (rate, bytes, rows), then the
 * label is shortened; the bar never gets narrower than ten characters while something else can go.
 */
export function renderProgressLine(state: ProgressState, width: number): string {
  const fraction = fractionDone(state);
  let stats = segments(state, fraction);
  let label = state.label;
  const pct = fraction === null ? "" : `${Math.floor(fraction * 100)}% `;
  const tail = () => `${pct}${stats.map((x) => x.text).join(", ")}`.trimEnd();
  const head = () => (fraction === null ? `[${label}] ` : `[${label}: `);
  const room = () => width - head().length - (fraction === null ? 0 : 2) - tail().length;
  const needed = fraction === null ? 0 : MIN_BAR;
  while (room() < needed && stats.length > 0) {
    const least = stats.reduce((a, b) => (b.keep < a.keep ? b : a));
    stats = stats.filter((x) => x !== least);
  }
  if (room() < needed && label.length > 1) label = `${label.slice(0, Math.max(1, label.length + room() - needed - 1))}…`;
  if (fraction === null) return `${head()}${tail()}`.trimEnd().slice(0, width);
  const barWidth = Math.max(0, room());
  const filled = Math.floor(barWidth * fraction);
  const bar = filled >= barWidth ? "=".repeat(barWidth) : `${"=".repeat(filled)}>${" ".repeat(barWidth - filled - 1)}`;
  return `${head()}${bar}] ${tail()}`.slice(0, width);
}
