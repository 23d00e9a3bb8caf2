import { SQL_CONF_KEYS, sqlConfSchema, type SqlConf, type SqlConfInput, type SqlConfKey } from "../config/sql-conf.js";
import { validateOptions } from "../config/validate.js";
import { OptionError } from "../errors/errors.js";

/**
 * Spark's `spark.conf` (RuntimeConfig): the session's Spark SQL settings, by Spark's keys.
 *
 * ```ts
 * const session = new Session({ conf: { "spark.sql.streaming.noDataMicroBatches.enabled": false } });
 * session.conf.set("spark.sql.streaming.noDataMicroBatches.enabled", "true");
 * ```
 *
 * A query reads the settings when it starts, as Spark's queries do: a change applies to the
 * queries started after it.
 */
export class RuntimeConfig {
  private given: SqlConfInput;
  private resolved: SqlConf;

  constructor(initial: SqlConfInput = {}) {
    this.resolved = validateOptions(sqlConfSchema, initial, "Session conf");
    this.given = { ...initial };
  }

  set<K extends SqlConfKey>(key: K, value: NonNullable<SqlConfInput[K]>): void {
    const next = { ...this.given, [key]: value };
    this.resolved = validateOptions(sqlConfSchema, next, "conf.set");
    this.given = next;
  }

  /** The setting's value as Spark gives it back: a string ("true", "false"). */
  get(key: SqlConfKey): string {
    return String(this.resolved[known(key, "conf.get")]);
  }

  /** Back to Spark's default. */
  unset(key: SqlConfKey): void {
    const { [known(key, "conf.unset")]: _dropped, ...rest } = this.given;
    this.resolved = validateOptions(sqlConfSchema, rest, "conf.unset");
    this.given = rest;
  }

  /** @internal What a query starting now runs with. */
  get values(): SqlConf {
    return this.resolved;
  }
}

/** Keys come typed from TypeScript, but not from JavaScript callers: say which ones exist. */
function known(key: string, where: string): SqlConfKey {
  if ((SQL_CONF_KEYS as string[]).includes(key)) return key as SqlConfKey;
  throw new OptionError(`${where}: unknown setting "${key}": Sluice reads ${SQL_CONF_KEYS.map((k) => `"${k}"`).join(", ")}`);
}
