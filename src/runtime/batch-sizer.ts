/**
 * The `latencyTarget` trigger's controller: how many rows the next micro-batch may read, and into
 * how many tasks it is split, so that results come out within the target at the highest
 * throughput the target allows.
 *
 * A micro-batch engine's latency is made of batch durations. A record that arrives while batch k
 * runs waits for it to finish, then is processed by batch k+1: up to two batch durations. When
 * the output waits for the watermark (an append-mode window), the record that closes a window
 * moves the watermark at the end of its batch and the window is emitted by the batch after: three
 * durations. So the controller keeps each batch under a *budget* of the target divided by those
 * spans (with a safety margin, as the target is a p99).
 *
 * The cap follows the measured durations of full batches (those that read as many rows as they
 * were allowed): the next cap is the last batch's rows scaled by budget ÷ duration, at most doubling
 * or halving per batch. With durations `fixedMs + perRowMs × rows` this converges on the size that
 * fills the budget whenever the fixed cost is under it, and one slow batch (the first pays for the
 * workers' start) moves the cap by half at most. Batches that were not full say nothing about a
 * larger size and leave the cap as it is.
 *
 * The durations are also fitted, by least squares over recent batches with older ones decaying, as
 * `fixedMs + perRowMs × rows` (planning, log writes, task round trips and the sink's flush, then
 * work proportional to the data). The fit decides what the proportional step cannot: the catch-up
 * size, whether fixed costs alone exceed the budget, and how many tasks a batch is worth.
 *
 * When batches keep hitting the cap the input arrives faster than budget-sized batches can take it:
 * the target cannot be met at this rate, and the waiting records are late already. Small batches
 * would then waste time on fixed costs and fall further behind, so the controller *catches up*:
 * it lets batches grow to the size where fixed costs are a tenth of the work (throughput within 10%
 * of the most larger batches could give; doubling per batch while the fit has no model), and
 * returns to the budget's cap once a batch takes everything that was waiting. The same holds when
 * the fixed costs alone exceed the budget: by the fit, or, on a machine too busy for durations to
 * fit a line, when full batches stay over twice the budget while the cap halves under them three
 * times in a row (shrinking further would only starve the query).
 */

/** What the controller decided for one batch, reported in that batch's progress (`batchSizing`). */
export interface BatchSizingProgress {
  /** The trigger's target for a result's latency, milliseconds. */
  readonly latencyTargetMs: number;
  /** The batch duration the sizing aims at: the target's share per batch. */
  readonly batchBudgetMs: number;
  /** The most rows this batch was allowed to read (from all its sources together). */
  readonly maxRowsPerBatch: number;
  /** The fewest tasks this batch's input was split into (sources split further when they hold more partitions). */
  readonly minTasks: number;
  /**
   * `probing` until the model has seen batches of different sizes, `withinTarget` while batches
   * fit the budget, `catchingUp` while input outpaces budget-sized batches, `targetUnreachable`
   * when a batch's fixed cost alone exceeds the budget (batches are then sized for throughput).
   */
  readonly mode: "probing" | "withinTarget" | "catchingUp" | "targetUnreachable";
  /** The fitted model: a batch's fixed cost and its cost per million rows, milliseconds. */
  readonly fixedCostMs: number;
  readonly perMillionRowsMs: number;
}

export interface BatchSizerOptions {
  readonly latencyTargetMs: number;
  /**
   * Batch durations a result's latency spans: 2, or 3 when the output waits for the watermark
   * (see the module comment).
   */
  readonly spans: 2 | 3;
  /** Workers that run tasks in parallel (0: tasks run on the driver). */
  readonly workers: number;
}

/** The share of the budget the p99 aims at: batch durations vary, and the model is an estimate. */
const MARGIN = 0.8;
/** The first batch's cap, before anything is measured: small enough to stay in any sane budget. */
const PROBE_ROWS = 10_000;
/** A cap never falls below this: smaller batches only add fixed costs, and a slow stream's batches are not full anyway. */
const MIN_ROWS = 1_000;
/** A cap changes at most by this factor per batch, up or down. */
const MAX_STEP = 2;
/** A batch with at least this share of its cap counts as full. */
const FULL = 0.9;
/** Each older batch counts this much less than the next one in the fit. */
const DECAY = 0.75;
/** Batches in a row that hit their cap before the controller calls it falling behind. */
const CAPPED_TO_CATCH_UP = 3;
/** A full batch over this many budgets is slow; this many slow ones in a row, each halving the cap, make the target unreachable. */
const SLOW = 2;
const SLOW_TO_UNREACHABLE = 3;
/** Catching up, fixed costs are kept to this share of the work (throughput within 10% of the asymptote). */
const CATCH_UP_FIXED_SHARE = 1 / 9;
/** A task should hold at least this much work, or the round trip costs more than the parallelism gains (DESIGN §11). */
const MIN_TASK_MS = 5;

interface CostModel {
  readonly fixedMs: number;
  readonly perRowMs: number;
}

export class BatchSizer {
  private readonly budgetMs: number;
  // Decayed sums for the weighted least-squares fit of duration against rows.
  private w = 0;
  private sn = 0;
  private sd = 0;
  private snn = 0;
  private snd = 0;
  /** The cap the proportional step keeps, before catching up widens it. */
  private budgetCap = PROBE_ROWS;
  private cappedInARow = 0;
  /** Full batches in a row that took over twice the budget. */
  private slowInARow = 0;
  private current: BatchSizingProgress;

  constructor(private readonly options: BatchSizerOptions) {
    this.budgetMs = (options.latencyTargetMs * MARGIN) / options.spans;
    this.current = this.decision("probing", PROBE_ROWS, null);
  }

  /** The sizing the next batch runs with. */
  get next(): BatchSizingProgress {
    return this.current;
  }

  /**
   * Records a finished batch: `rows` read in `durationMs` (trigger start to end), and whether rows
   * were left waiting (it hit its cap). Batches without data count too: they measure the fixed cost.
   */
  observe(rows: number, durationMs: number, hitCap: boolean): void {
    this.w = this.w * DECAY + 1;
    this.sn = this.sn * DECAY + rows;
    this.sd = this.sd * DECAY + durationMs;
    this.snn = this.snn * DECAY + rows * rows;
    this.snd = this.snd * DECAY + rows * durationMs;
    this.cappedInARow = hitCap ? this.cappedInARow + 1 : 0;
    const allowed = this.current.maxRowsPerBatch;
    const full = hitCap || rows >= FULL * allowed;
    if (full) this.slowInARow = durationMs > SLOW * this.budgetMs ? this.slowInARow + 1 : 0;
    else if (durationMs <= this.budgetMs) this.slowInARow = 0;
    const model = this.fit();
    // Fixed costs over the budget, as the fit says, or as full batches say that stayed slow while
    // the cap halved under them (their time is not in their rows: a busy machine, a slow disk).
    const unreachable = (model !== null && model.fixedMs >= this.budgetMs) || this.slowInARow >= SLOW_TO_UNREACHABLE;
    // A batch sized for throughput says nothing of the budget's size: the cap to return to stays.
    const sizedForThroughput = this.current.mode === "catchingUp" || this.current.mode === "targetUnreachable";
    if (full && rows > 0 && durationMs > 0 && !sizedForThroughput) {
      // Scale the rows' share of the duration to the budget's; the fitted fixed cost, where there is
      // one below both, makes this one step instead of many (without it, all cost counts as per row).
      const fixed = model !== null && model.fixedMs < 0.9 * Math.min(durationMs, this.budgetMs) ? model.fixedMs : 0;
      const step = Math.min(MAX_STEP, Math.max(1 / MAX_STEP, (this.budgetMs - fixed) / (durationMs - fixed)));
      this.budgetCap = Math.max(MIN_ROWS, rows * step);
    }
    let cap = this.budgetCap;
    const catchingUp = this.cappedInARow >= CAPPED_TO_CATCH_UP;
    if (catchingUp || unreachable) {
      // Falling behind, or no size meets the target: take the throughput, within the step bound.
      // Without a model (noisy durations of near-equal batches fit no line) the size where fixed
      // costs stop mattering is unknown: grow by the step bound. Either way a batch that did not
      // fill its cap says nothing about a larger size: the cap stays.
      const throughputRows = model !== null ? model.fixedMs / (CATCH_UP_FIXED_SHARE * model.perRowMs) : Infinity;
      cap = Math.max(cap, Math.min(throughputRows, full ? allowed * MAX_STEP : allowed));
    }
    // (Rounding must not turn an exact 81,920 into 81,919.)
    cap = Math.floor(cap * (1 + 1e-9));
    const mode = unreachable ? "targetUnreachable" : catchingUp ? "catchingUp" : model === null ? "probing" : "withinTarget";
    this.current = this.decision(mode, cap, model);
  }

  private spreadTooSmall(): boolean {
    const meanN = this.sn / this.w;
    return this.snn / this.w - meanN ** 2 <= (meanN * 0.05) ** 2;
  }

  /** Duration against rows by decayed least squares; null until batches of different sizes (or a tilted line from noise) let fixed and per-row cost be told apart. */
  private fit(): CostModel | null {
    if (this.sn <= 0 || this.spreadTooSmall()) return null;
    const meanN = this.sn / this.w;
    const meanD = this.sd / this.w;
    const perRowMs = (this.snd / this.w - meanN * meanD) / (this.snn / this.w - meanN ** 2);
    const fixedMs = meanD - perRowMs * meanN;
    return perRowMs > 0 && fixedMs >= 0 ? { fixedMs, perRowMs } : null;
  }

  private decision(mode: BatchSizingProgress["mode"], cap: number, model: CostModel | null): BatchSizingProgress {
    const { workers, latencyTargetMs } = this.options;
    // Split into one task per worker when each still gets enough work to pay for its round trip.
    const work = model === null ? 0 : model.perRowMs * cap;
    const minTasks = workers > 1 && work / workers >= MIN_TASK_MS ? workers : 1;
    return {
      latencyTargetMs,
      batchBudgetMs: round(this.budgetMs),
      maxRowsPerBatch: cap,
      minTasks,
      mode,
      fixedCostMs: round(model?.fixedMs ?? 0),
      perMillionRowsMs: round((model?.perRowMs ?? 0) * 1e6),
    };
  }
}

const round = (x: number) => Math.round(x * 100) / 100;
