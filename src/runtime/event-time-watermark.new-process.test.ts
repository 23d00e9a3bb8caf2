import { describe, it } from "vitest";
import { eventTimeWatermarkScenarios } from "../testing/scenarios/event-time-watermark.js";
import { runScenarioInNewProcesses } from "../testing/stream-test-process.js";

/**
 * The scenarios of event-time-watermark-suite.test.ts that restart before every step (Spark's
 * EventTimeWatermarkSuite, with its answers), with the query in a child process that is stopped
 * before every step that adds data and replaced by a new Node process on the same checkpoint:
 * every check reads what a process rebuilt from the checkpoint and its state files (the windows
 * still open, and the global watermark that decides which rows are late and which windows are final).
 *
 * With 0 workers: the aggregation's state lives on the driver either way, and a worker pool would
 * add its start-up to every process. Each scenario runs twice, stopped gracefully and SIGKILLed
 * between batches (nothing a graceful stop does, such as closing the state store, may matter): the
 * four start 16 processes per stop, about a second each, so all of them run both ways.
 */

/** A new process takes about a second to start (more on a busy machine): each scenario starts 3-5. */
const TIMEOUT_MS = 120_000;

describe.each(["graceful", "kill"] as const)("Spark's EventTimeWatermarkSuite with 0 workers, a new process after each step (%s stop)", (stop) => {
  for (const s of eventTimeWatermarkScenarios) it(s.name, () => runScenarioInNewProcesses(s, { workers: 0, stop }), TIMEOUT_MS);
});
