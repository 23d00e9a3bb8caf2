import { describe, expect, it } from "vitest";
import { formatBytes, formatCount, formatEta, type ProgressState, renderProgressLine } from "./console-progress-line.js";

const drain: ProgressState = {
  label: "availableNow query clicks",
  done: { files: 12, bytes: 180e6, rows: 1.2e6, tasks: 12 },
  total: { files: 40, bytes: 600e6 },
  elapsedMs: 2927,
};

describe("renderProgressLine", () => {
  it("draws the share of bytes read, the files out of the total, rows, bytes, rate and ETA, filling the width", () => {
    const line = renderProgressLine(drain, 120);
    expect(line).toBe(
      "[availableNow query clicks: =========>                       ] 30% 12/40 files, 1.2M rows, 180 MB, 410k rows/s, ETA 0:07",
    );
    expect(line).toHaveLength(120);
  });

  it("gives up the rate, then bytes, then rows, then the ETA on a narrower terminal, keeping a bar of ten", () => {
    expect(renderProgressLine(drain, 79)).toBe("[availableNow query clicks: ===>         ] 30% 12/40 files, 1.2M rows, ETA 0:07");
    expect(renderProgressLine(drain, 60)).toBe("[availableNow query clicks: ====>          ] 30% 12/40 files");
    expect(renderProgressLine(drain, 50)).toBe("[availableNow query clicks: =====>           ] 30%");
  });

  it("shortens the label when even the percentage leaves no room, and never exceeds the width", () => {
    expect(renderProgressLine(drain, 40)).toBe("[availableNow query cl…: ===>      ] 30%");
    expect(renderProgressLine(drain, 20)).toBe("[a…: ===>      ] 30%");
    for (let width = 1; width <= 130; width++) expect(renderProgressLine(drain, width).length).toBeLessThanOrEqual(width);
  });

  it("without a known total draws no bar: what was counted and the rate", () => {
    const state: ProgressState = { label: "collect", done: { files: 0, bytes: 0, rows: 1_234_567, tasks: 3 }, total: {}, elapsedMs: 3000 };
    expect(renderProgressLine(state, 80)).toBe("[collect] 1.2M rows, 412k rows/s");
  });

  it("measures by rows when only rows are known (Kafka offsets, in-memory tables), and by tasks as a last resort", () => {
    const rows: ProgressState = { label: "count", done: { files: 0, bytes: 0, rows: 500, tasks: 1 }, total: { rows: 2000, tasks: 4 }, elapsedMs: 1000 };
    expect(renderProgressLine(rows, 60)).toBe("[count: ==>        ] 25% 500/2.0k rows, 500 rows/s, ETA 0:03");
    expect(renderProgressLine({ ...rows, done: { ...rows.done, rows: 2000, tasks: 4 } }, 60)).toBe(
      "[count: ==================] 100% 2.0k/2.0k rows, 2.0k rows/s",
    );
    const tasks: ProgressState = { label: "collect", done: { files: 0, bytes: 0, rows: 0, tasks: 0 }, total: { tasks: 4 }, elapsedMs: 0 };
    expect(renderProgressLine(tasks, 40)).toBe("[collect: >               ] 0% 0/4 tasks");
  });
});

describe("progress units", () => {
  it("counts rows with k, M, B and two significant figures under ten", () => {
    expect([0, 999, 1000, 12_345, 410_000, 999_600, 1_234_567, 45e6, 7.5e9].map(formatCount)).toEqual([
      "0",
      "999",
      "1.0k",
      "12k",
      "410k",
      "1.0M",
      "1.2M",
      "45M",
      "7.5B",
    ]);
  });

  it("gives bytes in decimal units", () => {
    expect([0, 950, 1234, 180e6, 12.5e9, 1.5e12].map(formatBytes)).toEqual(["0 B", "950 B", "1.2 kB", "180 MB", "13 GB", "1.5 TB"]);
  });

  it("writes the ETA as m:ss, or h:mm:ss from an hour, rounded up to the second", () => {
    expect([0, 1, 6830, 59_999, 60_000, 754_000, 3_723_000].map(formatEta)).toEqual(["0:00", "0:01", "0:07", "1:00", "1:00", "12:34", "1:02:03"]);
  });
});
