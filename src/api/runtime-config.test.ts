import { describe, expect, it } from "vitest";
import { OptionError } from "../errors/errors.js";
import { Session } from "./session.js";

const KEY = "spark.sql.streaming.noDataMicroBatches.enabled";

describe("session.conf (Spark's RuntimeConfig)", () => {
  it("has Spark's default and takes a setting from the Session options or conf.set, as a boolean or Spark's string", async () => {
    const byDefault = new Session({ workers: 0 });
    expect(byDefault.conf.get(KEY)).toBe("true");
    const off = new Session({ workers: 0, conf: { [KEY]: false } });
    expect(off.conf.get(KEY)).toBe("false");
    off.conf.set(KEY, "true");
    expect(off.conf.get(KEY)).toBe("true");
    off.conf.set(KEY, false);
    expect(off.conf.get(KEY)).toBe("false");
    off.conf.unset(KEY);
    expect(off.conf.get(KEY)).toBe("true");
    await Promise.all([byDefault.stop(), off.stop()]);
  });

  it("refuses a value of the wrong kind and a key Sluice does not read, naming the setting", () => {
    const session = new Session({ workers: 0 });
    expect(() => session.conf.set(KEY, "yes" as never)).toThrow(OptionError);
    expect(() => session.conf.set(KEY, "yes" as never)).toThrow(`conf.set: option "${KEY}": ${KEY} must be true or false (got "yes")`);
    expect(session.conf.get(KEY)).toBe("true");
    expect(() => session.conf.set("spark.sql.shuffle.partitions" as never, "4" as never)).toThrow(
      `unknown setting(s) "spark.sql.shuffle.partitions": Sluice reads "${KEY}", "spark.sql.streaming.multipleWatermarkPolicy", "spark.sql.streaming.statefulOperator.checkCorrectness.enabled", "spark.ui.showConsoleProgress", "spark.ui.consoleProgress.update.interval", "spark.sql.streaming.ui.retainedProgressUpdates", "spark.sql.streaming.ui.retainedQueries"`,
    );
    expect(() => session.conf.get("spark.sql.shuffle.partitions" as never)).toThrow(`conf.get: unknown setting "spark.sql.shuffle.partitions"`);
    expect(() => new Session({ workers: 0, conf: { [KEY]: 1 as never } })).toThrow(`Session: option "conf.${KEY}": ${KEY} must be true or false (got 1)`);
  });

  it("has Spark's console progress settings: the bar on by default, redrawn every 200 ms, as milliseconds or Spark's time strings", async () => {
    const session = new Session({ workers: 0 });
    expect(session.conf.get("spark.ui.showConsoleProgress")).toBe("true");
    expect(session.conf.get("spark.ui.consoleProgress.update.interval")).toBe("200");
    session.conf.set("spark.ui.showConsoleProgress", "false");
    expect(session.conf.get("spark.ui.showConsoleProgress")).toBe("false");
    for (const [given, ms] of [[50, "50"], ["1000", "1000"], ["1s", "1000"], ["250ms", "250"], ["2 seconds", "2000"]] as const) {
      session.conf.set("spark.ui.consoleProgress.update.interval", given);
      expect(session.conf.get("spark.ui.consoleProgress.update.interval")).toBe(ms);
    }
    expect(() => session.conf.set("spark.ui.consoleProgress.update.interval", "often")).toThrow(
      `conf.set: option "spark.ui.consoleProgress.update.interval": cannot parse "often" as a duration; use a number and a unit such as "10 seconds", "5 minutes" or "1 hour"`,
    );
    await session.stop();
  });
});
