/**
 * Spark settings a remote session sets on its server session before running compiled plans, so
 * Spark evaluates them as Sluice does: times in UTC (Sluice's hour(), date_trunc and to_json read
 * instants in UTC), and Spark's non-ANSI rules, which Sluice follows (a cast that fails gives null,
 * division by zero gives null, where ANSI mode, Spark 4's default, raises an error).
 */
export const REMOTE_SESSION_CONF: Readonly<Record<string, string>> = {
  "spark.sql.session.timeZone": "UTC",
  "spark.sql.ansi.enabled": "false",
};
