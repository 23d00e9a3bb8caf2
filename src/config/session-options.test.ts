import { describe, expect, it } from "vitest";
import { Session } from "../api/session.js";
import { OptionError } from "../errors/errors.js";
import { sessionOptionsSchema } from "./options.js";
import { validateOptions } from "./validate.js";

const parse = (o: unknown) => validateOptions(sessionOptionsSchema, o, "Session");
/** What every Session gets when it names none of the checkpoint and stop options. */
const DEFAULTS = { minBatchesToRetain: 100, minDeltasForSnapshot: 10, stopTimeout: 30_000 };

describe("Session options for task failures", () => {
  it("takes taskTimeout and the retry backoff as Spark durations or milliseconds", () => {
    expect(parse({ taskTimeout: "5 minutes", taskRetryBackoff: "250 ms", taskRetryMaxBackoff: "10 seconds" })).toEqual({
      ...DEFAULTS,
      taskTimeout: 300_000,
      taskRetryBackoff: 250,
      taskRetryMaxBackoff: 10_000,
    });
    expect(parse({ taskTimeout: 0, taskRetryBackoff: 0 })).toEqual({ ...DEFAULTS, taskTimeout: 0, taskRetryBackoff: 0 });
    expect(parse({})).toEqual(DEFAULTS);
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

describe("Session options for checkpoints and stopping", () => {
  it("take Spark's retention settings, a default checkpoint root and a stop timeout", () => {
    expect(parse({ checkpointLocation: "/data/checkpoints", minBatchesToRetain: 5, minDeltasForSnapshot: 2, stopTimeout: "2 minutes" })).toEqual({
      checkpointLocation: "/data/checkpoints",
      minBatchesToRetain: 5,
      minDeltasForSnapshot: 2,
      stopTimeout: 120_000,
    });
  });

  it("name the option and the fix when a value is wrong", () => {
    expect(() => parse({ minBatchesToRetain: 0 })).toThrow(/option "minBatchesToRetain": minBatchesToRetain must be at least 1: a batch re-runs from the state of the batch before it/);
    expect(() => parse({ minDeltasForSnapshot: 1.5 })).toThrow(/option "minDeltasForSnapshot": minDeltasForSnapshot must be a whole number/);
    expect(() => parse({ checkpointLocation: "" })).toThrow(/option "checkpointLocation": checkpointLocation must be a directory path/);
    expect(() => parse({ stopTimeout: "never" })).toThrow(/option "stopTimeout": cannot parse "never" as a duration/);
  });
});

describe("Session options for a Spark Connect server (remote)", () => {
  it("takes a connection string, or one with the client's settings as Spark durations", () => {
    expect(parse({ remote: "sc://spark:15002" })).toEqual({ ...DEFAULTS, remote: "sc://spark:15002" });
    expect(parse({ remote: { url: "sc://spark", keepAliveInterval: "30 seconds", callTimeout: 5000, pingInterval: "2 s", maxReattachAttempts: 3 } })).toEqual({
      ...DEFAULTS,
      remote: { url: "sc://spark", keepAliveInterval: 30_000, callTimeout: 5_000, pingInterval: 2_000, maxReattachAttempts: 3 },
    });
  });

  it("names the option and the form when a value is wrong", () => {
    expect(() => parse({ remote: "spark:15002" })).toThrow('Session: option "remote": remote must be a Spark Connect connection string starting with sc://, e.g. "sc://127.0.0.1:15002"');
    expect(() => parse({ remote: { url: "sc://spark", keepAlive: 1 } })).toThrow('Session: option "remote": Unrecognized key: "keepAlive"');
    expect(() => parse({ remote: 15002 })).toThrow('Session: option "remote": remote must be a connection string ("sc://host:15002") or { url, keepAliveInterval?, callTimeout?, pingInterval?, maxReattachAttempts? }');
    expect(() => new Session({ remote: "sc://spark/;use_ssl=maybe" })).toThrow(OptionError);
  });
});

describe("Session options for the worker threads' heap (workerResourceLimits)", () => {
  it("takes Node's Worker resourceLimits in MiB", () => {
    expect(parse({ workerResourceLimits: { maxYoungGenerationSizeMb: 32, maxOldGenerationSizeMb: 2048, stackSizeMb: 8 } })).toEqual({
      ...DEFAULTS,
      workerResourceLimits: { maxYoungGenerationSizeMb: 32, maxOldGenerationSizeMb: 2048, stackSizeMb: 8 },
    });
  });

  it("names the field and its floor when a value is wrong, and refuses fields Node does not take", () => {
    expect(() => parse({ workerResourceLimits: { maxOldGenerationSizeMb: 16 } })).toThrow(
      'Session: option "workerResourceLimits.maxOldGenerationSizeMb": workerResourceLimits.maxOldGenerationSizeMb must be at least 64 (MiB) (got 16)',
    );
    expect(() => parse({ workerResourceLimits: { maxYoungGenerationSizeMb: "24" } })).toThrow(/option "workerResourceLimits.maxYoungGenerationSizeMb": workerResourceLimits.maxYoungGenerationSizeMb must be a finite number of MiB/);
    expect(() => parse({ workerResourceLimits: { maxYoungGenerationSizeMb: Number.POSITIVE_INFINITY } })).toThrow(/must be a finite number of MiB/);
    expect(() => parse({ workerResourceLimits: { maxYoungGenerationSizeMb: 2 } })).toThrow(/workerResourceLimits.maxYoungGenerationSizeMb must be at least 4 \(MiB\)/);
    expect(() => parse({ workerResourceLimits: { codeRangeSizeMb: 64 } })).toThrow('Session: option "workerResourceLimits": Unrecognized key: "codeRangeSizeMb"');
  });
});
