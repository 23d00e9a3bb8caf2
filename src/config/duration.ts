import { z } from "zod";
import { OptionError } from "../errors/errors.js";
import { readIntervalString } from "./interval-string.js";

/**
 * Parses a duration given as one of Spark's interval strings ("10 minutes", "1 hour 30 minutes",
 * "500 ms", optionally prefixed by "interval"; see config/interval-string.ts) or a number of
 * milliseconds. Months and years are refused: a duration here (a window, a trigger interval, a
 * timeout) must have a fixed length. `option` names the argument in errors.
 */
export function parseDuration(value: string | number, option: string): number {
  if (typeof value === "number") {
    if (!Number.isFinite(value) || value < 0) {
      throw new OptionError(`${option}: expected a non-negative number of milliseconds or a string such as "10 seconds", got ${value}`);
    }
    return value;
  }
  if (value.trim().replace(/^interval\b/i, "").trim() === "") throw new OptionError(`${option}: expected a duration such as "10 seconds", got an empty string`);
  const interval = readIntervalString(value);
  if (!interval) {
    throw new OptionError(
      `${option}: cannot parse "${value}" as a duration; use a number and a unit such as "10 seconds", "5 minutes" or "1 hour"`,
    );
  }
  if (interval.months !== 0) {
    throw new OptionError(`${option}: "${value}" counts months or years, which have no fixed length; give the duration in days or smaller units, e.g. "30 days"`);
  }
  if (interval.ms < 0) throw new OptionError(`${option}: duration "${value}" is negative`);
  return interval.ms;
}

/**
 * A zod schema for a duration option: what `parseDuration` reads, and a string of digits alone as
 * milliseconds (as Spark's time settings default to them); errors name `option`.
 */
export function durationSchema(option: string) {
  return z
    .union([z.number(), z.string()], { error: `${option} must be a number of milliseconds or a duration such as "10 seconds"` })
    .transform((v, ctx) => {
      try {
        return parseDuration(typeof v === "string" && /^\s*\d+\s*$/.test(v) ? Number(v) : v, option);
      } catch (e) {
        ctx.addIssue({ code: "custom", message: (e as Error).message.replace(`${option}: `, "") });
        return z.NEVER;
      }
    });
}
