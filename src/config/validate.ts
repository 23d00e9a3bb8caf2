import type { z } from "zod";
import { OptionError } from "../errors/errors.js";
import { SECRET_OPTIONS } from "./kafka-security-options.js";

/**
 * Validates user options against a zod schema at the API boundary and turns zod's issues into one
 * `OptionError` that names each offending option, what it accepts, and what was given.
 */
export function validateOptions<T extends z.ZodType>(schema: T, input: unknown, where: string): z.output<T> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const lines = result.error.issues.map((issue) => {
    const path = issue.path.length ? issue.path.join(".") : "(options)";
    const given = valueAt(input, issue.path as PropertyKey[]);
    // A secret's value is never repeated, not even when it is wrong; nor is the whole map of
    // options (an unknown key's issue is the map's), which would repeat every secret in it.
    const whole = issue.path.length === 0 && given !== null && typeof given === "object";
    const shown = given === undefined || whole || SECRET_OPTIONS.has(path) ? "" : ` (got ${JSON.stringify(given)})`;
    return `option "${path}": ${issue.message}${shown}`;
  });
  throw new OptionError(`${where}: ${lines.join("; ")}`);
}

function valueAt(input: unknown, path: PropertyKey[]): unknown {
  let v: any = input;
  for (const p of path) {
    if (v === null || typeof v !== "object") return undefined;
    v = v[p as any];
  }
  return v;
}
