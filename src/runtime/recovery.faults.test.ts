import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Session } from "../api/session.js";
import { createTopic, kafkaBootstrap } from "../testing/kafka.js";
import { loadScenarioInput, runChild, runToCompletion, scenarioOutput, type ScenarioInput } from "../testing/recovery.js";
import { tempDir } from "../testing/temp-dir.js";
import type { WindowedCountsPlan } from "../testing/windowed-counts.js";

/**
 * A query killed at each named crash point and started again in a new process produces exactly
 * the output of an uninterrupted run: the windowed counts of 20,000 events in ~20 micro-batches,
 * written exactly once to Kafka (transactions) and to JSON files (manifest). Each test checks
 * that the child really died at its point (SIGKILL, after printing the point's line).
 */
const EVENTS = 20_000;
const KEYS = 40;

/** Crash points with their detail: a batch id, or a state version (batch id + 1). */
const COMMON = [
  "afterOffsetsWrite:3",
  "inTask:3",
  "afterSinkBeforeCommit:3",
  "afterCommit:3",
  // Batch 19 reads the last 1,000 events and moves the watermark past the window [180 s, 190 s),
  // which only the no-data batch after it emits: the restarted run must run that batch itself.
  "afterCommit:19",
  "stateDelta:5",
  "stateSnapshot",
  "stateMaintenance",
] as const;
const BY_SINK = {
  kafka: [...COMMON, "kafkaSinkBeforeCommit:3", "kafkaSinkAfterCommit:3"],
  file: [...COMMON, "fileSinkBeforeManifest:3"],
} as const;

describe("recovery from a crash at every named point", () => {
  let input: ScenarioInput;
  let session: Session;
  const temp = tempDir("sluice-recovery-");
  beforeAll(async () => {
    input = await loadScenarioInput(kafkaBootstrap(), EVENTS, KEYS);
    session = new Session({ workers: 0 });
  });
  afterAll(async () => {
    await session.stop();
    temp.remove();
  });

  async function plan(sink: "kafka" | "file", name: string, trigger: "availableNow" | "default" = "availableNow"): Promise<WindowedCountsPlan> {
    const dir = temp.path(`${sink}-${trigger}-${name.replace(/:/g, "-")}`);
    return {
      kind: "windowedCounts",
      bootstrap: kafkaBootstrap(),
      input: input.topic,
      checkpoint: path.join(dir, "checkpoint"),
      sink: sink === "kafka" ? { kind: "kafka", topic: await createTopic("recovery-output", 1) } : { kind: "file", path: path.join(dir, "out") },
      maxOffsetsPerTrigger: 1_000,
      workers: 2,
      // Snapshots every 3 versions and 2 retained batches: snapshots and deletions happen within the run.
      minDeltasForSnapshot: 3,
      minBatchesToRetain: 2,
      trigger,
    };
  }

  it("the uninterrupted run gives the expected windows (the answer the crash tests compare with)", async () => {
    for (const sink of ["kafka", "file"] as const) {
      const p = await plan(sink, "uninterrupted");
      const attempts = await runToCompletion(p, 1);
      expect(attempts.map((a) => a.outcome)).toEqual(["done"]);
      expect(attempts[0]!.batches).toBeGreaterThanOrEqual(20);
      expect(await scenarioOutput(session, p)).toEqual(input.expected);
      const underDefault = await plan(sink, "uninterrupted", "default");
      const run = await runToCompletion(underDefault, 1);
      expect(run.map((a) => [a.outcome, a.batches])).toEqual([["done", 40]]);
      expect(await scenarioOutput(session, underDefault)).toEqual(input.expected);
    }
    expect(input.expected.length).toBe(19 * KEYS);
  });

  for (const sink of ["kafka", "file"] as const) {
    it.each(BY_SINK[sink])(`${sink} sink: killed at %s, restarted, the output is exact`, (point) => crashAndRecover(sink, point, "availableNow"));
  }

  // Under the default trigger every batch here moves the watermark, and each is followed at once by
  // its no-data batch, which writes to the sink before either commits and is logged after: data
  // batches get the even ids, no-data batches the odd ones (batch 38 reads the last events, 39
  // emits the last windows). A restart after commits/N runs batch N+1 again, the same batch the
  // sink may already hold.
  const FOLLOWING = ["afterSinkBeforeCommit:4", "afterSinkBeforeCommit:5", "afterCommit:4", "afterOffsetsWrite:5", "afterCommit:38"] as const;
  for (const sink of ["kafka", "file"] as const) {
    it.each(FOLLOWING)(`default trigger, ${sink} sink: killed at %s, restarted, the output is exact`, (point) => crashAndRecover(sink, point, "default"));
  }

  async function crashAndRecover(sink: "kafka" | "file", point: string, trigger: "availableNow" | "default"): Promise<void> {
    const p = await plan(sink, point, trigger);
    const crashed = await runChild(p, { crashAt: point });
    expect(crashed.outcome).toBe("crashed");
    const [name, detail] = point.split(":");
    expect(crashed.crashLine).toMatch(new RegExp(`^SLUICE_CRASHED ${name}${detail === undefined ? "( \\d+)?" : ` ${detail}`}$`));
    const rest = await runToCompletion(p);
    expect(rest.at(-1)!.outcome).toBe("done");
    expect(await scenarioOutput(session, p)).toEqual(input.expected);
  }
});
