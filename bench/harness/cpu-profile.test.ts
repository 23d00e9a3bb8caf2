import { describe, expect, it } from "vitest";
import { summarizeProfile, type CpuProfile } from "./cpu-profile.js";

const ROOT = "/repo";
const frame = (functionName: string, file = "") => ({ functionName, url: file === "" ? "" : `file://${file}` });

/**
 * (root) -> task -> decode -> scan        task: 1 ms self, decode: 2 ms self, scan: 3 ms self
 *                -> aggregate -> decode   (a decode reached another way: 4 ms self)
 * (root) -> (idle)                        10 ms
 * (root) -> (garbage collector)           5 ms
 */
const PROFILE: CpuProfile = {
  nodes: [
    { id: 1, callFrame: frame("(root)"), children: [2, 7, 8] },
    { id: 2, callFrame: frame("task", `${ROOT}/src/task.ts`), children: [3, 5] },
    { id: 3, callFrame: frame("decode", `${ROOT}/src/decode.ts`), children: [4] },
    { id: 4, callFrame: frame("scan", `${ROOT}/node_modules/lib/scan.js`) },
    { id: 5, callFrame: frame("aggregate", `${ROOT}/src/aggregate.ts`), children: [6] },
    { id: 6, callFrame: frame("decode", `${ROOT}/src/decode.ts`) },
    { id: 7, callFrame: frame("(idle)") },
    { id: 8, callFrame: frame("(garbage collector)") },
  ],
  samples: [2, 3, 3, 4, 4, 4, 6, 6, 7, 8],
  timeDeltas: [1000, 1000, 1000, 1000, 1000, 1000, 2000, 2000, 10000, 5000],
};

describe("summarizeProfile", () => {
  const summary = summarizeProfile(PROFILE, {
    top: 3,
    root: ROOT,
    stages: [
      ["decoding", "decode"],
      ["the task", "task"],
      ["sorting", "sort"],
    ],
  });

  it("leaves idle time out of the busy time every share is of", () => {
    expect([summary.totalSeconds, summary.idleSeconds, summary.busySeconds]).toEqual([0.025, 0.01, 0.015]);
  });

  it("ranks frames by self time, a function's frames summed, files relative to the repository", () => {
    expect(summary.top).toEqual([
      { frame: "decode src/decode.ts", seconds: 0.006, share: 6 / 15 },
      { frame: "(garbage collector)", seconds: 0.005, share: 5 / 15 },
      { frame: "scan nm/lib/scan.js", seconds: 0.003, share: 3 / 15 },
    ]);
  });

  it("gives each stage the time of every sample with its function on the stack, and 0 to a function never seen", () => {
    expect(summary.stages.map((s) => [s.stage, s.seconds])).toEqual([
      ["decoding", 0.009],
      ["the task", 0.01],
      ["sorting", 0],
    ]);
  });
});
