import type { InputSplit } from "../sources/input-split.js";
import type { Offset, StreamSource } from "../sources/source.js";
import type { ProgressCounts, ProgressTotals } from "./console-progress-line.js";

/**
 * What a set of input splits amounts to, and what each completed split adds, for the console
 * progress bar. A file cut into several byte ranges counts as read once its last range is; files
 * without data have no split and are not counted (sources/file/plan-splits.ts).
 */
export class SplitProgress {
  private readonly rangesLeft = new Map<string, number>();
  readonly totals: ProgressTotals;

  constructor(splits: readonly InputSplit[]) {
    let bytes = 0;
    let rows: number | undefined = 0;
    for (const s of splits) {
      switch (s.kind) {
        case "file":
          this.rangesLeft.set(s.path, (this.rangesLeft.get(s.path) ?? 0) + 1);
          bytes += s.end - s.start;
          rows = undefined;
          break;
        case "batch":
          if (rows !== undefined) rows += s.batch.numRows;
          break;
        case "kafka":
          // Offsets, not records: compacted topics and transaction markers make the count an upper bound.
          if (rows !== undefined) rows += s.endOffset - s.startOffset;
          break;
        case "rate":
          rows = undefined;
          break;
      }
    }
    const files = this.rangesLeft.size;
    this.totals = { tasks: splits.length, ...(files > 0 ? { files, bytes } : {}), ...(rows !== undefined ? { rows } : {}) };
  }

  /** What a task that read `split` and produced `rows` input rows adds. */
  completed(split: InputSplit, rows: number): Partial<ProgressCounts> {
    if (split.kind !== "file") return { tasks: 1, rows };
    const left = (this.rangesLeft.get(split.path) ?? 1) - 1;
    this.rangesLeft.set(split.path, left);
    return { tasks: 1, rows, bytes: split.end - split.start, files: left === 0 ? 1 : 0 };
  }
}

/**
 * What an availableNow drain starting at `from` has to read: each source's backlog, summed in the
 * units every source knows (a file source's files and bytes, Kafka's and memory's rows). A
 * source that cannot say, or fails to, leaves the total unknown: the bar still counts.
 */
export async function backlogTotals(sources: readonly StreamSource[], from: readonly Offset[]): Promise<ProgressTotals> {
  const backlogs = await Promise.all(sources.map((s, i) => s.backlog?.(from[i]).catch(() => undefined)));
  const total: { files?: number; bytes?: number; rows?: number } = {};
  for (const unit of ["files", "bytes", "rows"] as const) {
    const each = backlogs.map((b) => b?.[unit]);
    if (each.every((n) => n !== undefined)) total[unit] = each.reduce((a, b) => a! + b!, 0);
  }
  return total;
}
