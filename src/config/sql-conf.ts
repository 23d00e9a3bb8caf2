import { z } from "zod";

/** Spark's boolean settings take true / false, or the strings Spark's `conf.set` is usually given. */
const flag = (key: string) =>
  z.union([z.boolean(), z.enum(["true", "false"]).transform((s) => s === "true")], {
    error: `${key} must be true or false`,
  });

const NO_DATA_MICRO_BATCHES = "spark.sql.streaming.noDataMicroBatches.enabled";

const settings = {
  /**
   * Whether a batch without new data runs when the watermark moved and a stateful operator may
   * emit or evict by it (Spark's default: true). Off, what a watermark makes final waits for the
   * next batch with data.
   */
  [NO_DATA_MICRO_BATCHES]: flag(NO_DATA_MICRO_BATCHES).default(true),
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

export { NO_DATA_MICRO_BATCHES };
