import { randomInt } from "node:crypto";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Session } from "../api/session.js";
import { createTopic, kafkaBootstrap } from "./kafka.js";
import { compareCounts, loadScenarioInput, runWithRandomKills, scenarioOutput, seededRandom, type ScenarioInput } from "./recovery.js";
import { tempDir } from "./temp-dir.js";
import type { WindowedCountsPlan } from "./windowed-counts.js";

const EVENTS = 20_000;
const KEYS = 40;
/** Kills after the first fall within this much of a restart (an uninterrupted run takes ~3-15 s on CI machines). */
const MAX_RUN_MS = 8_000;

/**
 * Randomized kill/restart runs of the recovery scenario (a stateful windowed Kafka query, exactly
 * once to Kafka and to JSON files): each run SIGKILLs the query 1-4 times at random moments of its
 * work, restarts it each time in a new process on the same checkpoint, and lets it finish; the
 * output must equal the answer computed without Sluice, with nothing lost or duplicated.
 * `SLUICE_RECOVERY_RUNS` overrides the runs per sink; `SLUICE_RECOVERY_SEED` replays the seed a
 * failure printed.
 */
export function randomRecoverySuite(runsPerSink: number): void {
  const runs = Number(process.env.SLUICE_RECOVERY_RUNS ?? runsPerSink);
  const seed = Number(process.env.SLUICE_RECOVERY_SEED ?? randomInt(1, 2 ** 31));

  describe(`randomized kill/restart runs (seed ${seed}, ${runs} runs per sink)`, () => {
    let input: ScenarioInput;
    let session: Session;
    const temp = tempDir("sluice-random-recovery-");
    const totals = { runs: 0, kills: 0, lost: 0, duplicated: 0 };
    beforeAll(async () => {
      input = await loadScenarioInput(kafkaBootstrap(), EVENTS, KEYS);
      session = new Session({ workers: 0 });
    });
    afterAll(async () => {
      console.log(`randomized recovery, seed ${seed}: ${totals.runs} runs, ${totals.kills} kills, ${totals.lost} rows lost, ${totals.duplicated} rows duplicated`);
      await session.stop();
      temp.remove();
    });

    for (const sink of ["kafka", "file"] as const) {
      it.each(Array.from({ length: runs }, (_, i) => i))(`${sink} sink, run %i: the output after random kills equals the uninterrupted answer`, async (run) => {
        const random = seededRandom(seed + run * 7919 + (sink === "kafka" ? 0 : 104729));
        const dir = temp.path(`${sink}-${run}`);
        const plan: WindowedCountsPlan = {
          kind: "windowedCounts",
          bootstrap: kafkaBootstrap(),
          input: input.topic,
          checkpoint: path.join(dir, "checkpoint"),
          sink: sink === "kafka" ? { kind: "kafka", topic: await createTopic("random-recovery-output", 1) } : { kind: "file", path: path.join(dir, "out") },
          maxOffsetsPerTrigger: 1_000,
          workers: 2,
          minDeltasForSnapshot: 3,
          minBatchesToRetain: 2,
        };
        const kills = 1 + Math.floor(random() * 4);
        const attempts = await runWithRandomKills(plan, random, kills, MAX_RUN_MS);
        const output = await scenarioOutput(session, plan);
        const { lost, duplicated } = compareCounts(output, input.expected);
        totals.runs++;
        totals.kills += attempts.filter((a) => a.outcome === "killed").length;
        totals.lost += lost;
        totals.duplicated += duplicated;
        expect(attempts[0]!.outcome).toBe("killed");
        expect(attempts.at(-1)!.outcome).toBe("done");
        expect({ lost, duplicated }).toEqual({ lost: 0, duplicated: 0 });
        expect(output).toEqual(input.expected);
      });
    }

    it("ran every run, each killed at least once", () => {
      expect(totals.runs).toBe(2 * runs);
      expect(totals.kills).toBeGreaterThanOrEqual(totals.runs);
    });
  });
}
