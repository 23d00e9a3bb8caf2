import { describe, expect, it } from "vitest";
import { Session } from "../api/session.js";
import { OptionError } from "../errors/errors.js";
import { sessionOptionsSchema } from "./options.js";
import { validateOptions } from "./validate.js";

const parse = (o: unknown) => validateOptions(sessionOptionsSchema, o, "Session");

describe("Session options for task failures", () => {
  it("takes taskTimeout and the retry backoff as Spark durations or milliseconds", () => {
    expect(parse({ taskTimeout: "5 minutes", taskRetryBackoff: "250 ms", taskRetryMaxBackoff: "10 seconds" })).toEqual({
      taskTimeout: 300_000,
      taskRetryBackoff: 250,
      taskRetryMaxBackoff: 10_000,
    });
    expect(parse({ taskTimeout: 0, taskRetryBackoff: 0 })).toEqual({ taskTimeout: 0, taskRetryBackoff: 0 });
    expect(parse({})).toEqual({});
  });

  it("names the option and the accepted forms when a value is wrong", () => {
    expect(() => parse({ taskTimeout: "soon" })).toThrow(
      'Session: option "taskTimeout": cannot parse "soon" as a duration; use a number and a unit such as "10 seconds", "5 minutes" or "1 hour" (got "soon")',
    );
    expect(() => parse({ taskTimeout: -1 })).toThrow(
      'Session: option "taskTimeout": expected a non-negative number of milliseconds or a string such as "10 seconds", got -1 (got -1)',
    );
    expect(() => parse({ taskRetryBackoff: "2 s", taskRetryMaxBackoff: "1 s" })).toThrow(
      'Session: option "taskRetryMaxBackoff": taskRetryMaxBackoff must be at least taskRetryBackoff (got "1 s")',
    );
  });

  it("rejects them at the Session boundary with an OptionError", () => {
    expect(() => new Session({ workers: 0, taskTimeout: "forever" })).toThrow(OptionError);
    expect(() => new Session({ workers: 0, taskRetryMaxBackoff: Number.NaN })).toThrow(/option "taskRetryMaxBackoff"/);
  });
});
