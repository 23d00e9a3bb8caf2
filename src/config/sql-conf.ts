import { z } from "zod";
import { durationSchema } from "./duration.js";

/** Spark's boolean settings take true / false, or the strings Spark's `conf.set` is usually given. */
const flag = (key: string) =>
  z.union([z.boolean(), z.enum(["true", "false"]).transform((s) => s === "true")], {
    error: `${key} must be true or false`,
  });

const NO_DATA_MICRO_BATCHES = "spark.sql.streaming.noDataMicroBatches.enabled";
const MULTIPLE_WATERMARK_POLICY = "spark.sql.streaming.multipleWatermarkPolicy";
const STATEFUL_OPERATOR_CHECK_CORRECTNESS = "spark.sql.streaming.statefulOperator.checkCorrectness.enabled";
const SHOW_CONSOLE_PROGRESS = "spark.ui.showConsoleProgress";
const CONSOLE_PROGRESS_UPDATE_INTERVAL = "spark.ui.consoleProgress.update.interval";

/** Spark's time settings: a number of milliseconds, or a string such as "200ms" or "1s". */
const milliseconds = durationSchema;
const UI_RETAINED_PROGRESS_UPDATES = "spark.sql.streaming.ui.retainedProgressUpdates";
const UI_RETAINED_QUERIES = "spark.sql.streaming.ui.retainedQueries";
const REAL_TIME_MIN_BATCH_DURATION = "spark.sql.streaming.realTimeMode.minBatchDuration";

/** Spark's count settings take a whole number, or its string form. */
const count = (key: string) =>
  z.coerce.number({ error: `${key} must be a whole number` }).int(`${key} must be a whole number`).min(0, `${key} must be 0 or more`);

/** How the global watermark is chosen from the watermarks of several inputs. */
export const WATERMARK_POLICIES = ["min", "max"] as const;
export type WatermarkPolicy = (typeof WATERMARK_POLICIES)[number];

/** Spark lower-cases the value before it checks it, so "MAX" is max. */
export const watermarkPolicySchema = z
  .string({ error: `${MULTIPLE_WATERMARK_POLICY} must be a string: valid values are 'min' and 'max'` })
  .transform((s) => s.toLowerCase())
  .pipe(
    z.enum(WATERMARK_POLICIES, {
      error: `invalid value for ${MULTIPLE_WATERMARK_POLICY}: valid values are 'min' and 'max' ("min", the default, moves the global watermark with the slowest input; "max" with the fastest)`,
    }),
  );

const settings = {
  /**
   * Whether a batch without new data runs when the watermark moved and a stateful operator may
   * emit or evict by it (Spark's default: true). Off, what a watermark makes final waits for the
   * next batch with data.
   */
  [NO_DATA_MICRO_BATCHES]: flag(NO_DATA_MICRO_BATCHES).default(true),
  /**
   * The global watermark of a query with several watermarked inputs: the minimum of theirs
   * (Spark's default: no input's on-time rows are dropped) or the maximum (the watermark moves
   * with the fastest input; rows of the slower ones may be dropped as late). A query keeps the
   * policy it first ran with in its checkpoint (runtime/relayed-conf.ts).
   */
  [MULTIPLE_WATERMARK_POLICY]: watermarkPolicySchema.default("min"),
  /**
   * Whether start() refuses a stateful operator after an aggregation in update or complete mode,
   * whose re-emitted groups the operator may drop as late (Spark's global-watermark correctness
   * check; default true). Off, such a query runs, with a warning, as Spark lets it.
   */
  [STATEFUL_OPERATOR_CHECK_CORRECTNESS]: flag(STATEFUL_OPERATOR_CHECK_CORRECTNESS).default(true),
  /**
   * Whether long static actions and availableNow drains draw a progress bar on stderr (Spark's
   * default in its shells: true). Drawn only when stderr is a terminal (runtime/console-progress.ts).
   */
  [SHOW_CONSOLE_PROGRESS]: flag(SHOW_CONSOLE_PROGRESS).default(true),
  /** How often the progress bar is redrawn, in milliseconds (Spark's default: 200). */
  [CONSOLE_PROGRESS_UPDATE_INTERVAL]: milliseconds(CONSOLE_PROGRESS_UPDATE_INTERVAL).default(200),
  /** Progress reports the web UI keeps per query run (Spark's default: 100). */
  [UI_RETAINED_PROGRESS_UPDATES]: count(UI_RETAINED_PROGRESS_UPDATES).default(100),
  /** Finished query runs the web UI keeps (Spark's default: 100); active ones are always shown. */
  [UI_RETAINED_QUERIES]: count(UI_RETAINED_QUERIES).default(100),
  /**
   * The shortest checkpoint interval a real-time trigger may have, in milliseconds (Spark's
   * default: 5000): each interval ends every task, writes the logs and starts the tasks again.
   */
  [REAL_TIME_MIN_BATCH_DURATION]: milliseconds(REAL_TIME_MIN_BATCH_DURATION).default(5_000),
};

/** The Spark SQL settings Sluice reads, by Spark's keys; another key is refused, never ignored. */
export const SQL_CONF_KEYS = Object.keys(settings) as (keyof typeof settings)[];

export const sqlConfSchema = z.strictObject(settings, {
  error: (issue) =>
    issue.code === "unrecognized_keys"
      ? `unknown setting(s) ${issue.keys.map((k) => `"${k}"`).join(", ")}: Sluice reads ${SQL_CONF_KEYS.map((k) => `"${k}"`).join(", ")}`
      : undefined,
});

export type SqlConfKey = keyof typeof settings;
/** What a setting may be given as (Spark's string form included). */
export type SqlConfInput = z.input<typeof sqlConfSchema>;
/** The settings a query runs with, read once when it starts (as Spark reads them). */
export type SqlConf = Readonly<z.output<typeof sqlConfSchema>>;

export { MULTIPLE_WATERMARK_POLICY, NO_DATA_MICRO_BATCHES, STATEFUL_OPERATOR_CHECK_CORRECTNESS };
export { CONSOLE_PROGRESS_UPDATE_INTERVAL, SHOW_CONSOLE_PROGRESS };
export { UI_RETAINED_PROGRESS_UPDATES, UI_RETAINED_QUERIES };
export { REAL_TIME_MIN_BATCH_DURATION };
