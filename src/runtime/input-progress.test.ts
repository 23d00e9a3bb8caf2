import { writeFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { fieldsFromZod } from "../schema/zod-schema.js";
import { FileStreamSource } from "../sources/file/file-stream-source.js";
import { planFileSplits } from "../sources/file/plan-splits.js";
import type { InputSplit } from "../sources/input-split.js";
import { MemoryStreamData, MemoryStreamSource } from "../sources/memory/memory-stream.js";
import { tempDirs } from "../testing/temp-dirs.js";
import { backlogTotals, SplitProgress } from "./input-progress.js";

const folder = tempDirs();

const fileSplit = (path: string, start: number, end: number): InputSplit => ({ kind: "file", path, start, end });

describe("SplitProgress", () => {
  it("totals files, bytes and tasks of file splits, and counts a file once its last range is read", () => {
    const splits = [fileSplit("/a", 0, 100), fileSplit("/a", 100, 200), fileSplit("/a", 200, 250), fileSplit("/b", 0, 40)];
    const tally = new SplitProgress(splits);
    expect(tally.totals).toEqual({ tasks: 4, files: 2, bytes: 290 });
    expect(splits.map((s, i) => tally.completed(s, 10 * (i + 1)))).toEqual([
      { tasks: 1, rows: 10, bytes: 100, files: 0 },
      { tasks: 1, rows: 20, bytes: 100, files: 0 },
      { tasks: 1, rows: 30, bytes: 50, files: 1 },
      { tasks: 1, rows: 40, bytes: 40, files: 1 },
    ]);
  });

  it("totals rows where the splits know them: in-memory batches and Kafka offset ranges", () => {
    const data = new MemoryStreamData(fieldsFromZod(z.object({ n: z.int() })));
    data.addData([{ n: 1 }, { n: 2 }, { n: 3 }]);
    const batch: InputSplit = { kind: "batch", batch: data.blocksBetween(0, 1)[0]! };
    expect(new SplitProgress([batch, batch]).totals).toEqual({ tasks: 2, rows: 6 });
    expect(new SplitProgress([batch, fileSplit("/a", 0, 10)]).totals).toEqual({ tasks: 2, files: 1, bytes: 10 });
    expect(new SplitProgress([]).totals).toEqual({ tasks: 0, rows: 0 });
  });
});

describe("backlogTotals (an availableNow drain's total)", () => {
  it("counts a file source's files with data and their bytes, admitted or not yet, after the given offset", async () => {
    const input = folder();
    input.write("a.jsonl", ['{"n":1}', '{"n":2}']);
    input.write("b.jsonl", ['{"n":3}']);
    // No bytes, no split, no task: not a file the bar waits for.
    writeFileSync(input.path("empty.jsonl"), "");
    const source = new FileStreamSource(
      input.dir,
      { maxFilesPerTrigger: null, pathGlobFilter: null, planSplits: (files) => planFileSplits(files, 1 << 20) },
      folder().dir,
    );
    expect(await backlogTotals([source], [0])).toEqual({ files: 2, bytes: 16 + 8 });
    // Admitted by batch 1's entry but not yet read: still waiting after offset 0, not after 1.
    expect(await source.latestOffset(0)).toBe(1);
    expect(await backlogTotals([source], [0])).toEqual({ files: 2, bytes: 24 });
    expect(await backlogTotals([source], [1])).toEqual({ files: 0, bytes: 0 });
    input.write("c.jsonl", ['{"n":4}']);
    expect(await backlogTotals([source], [1])).toEqual({ files: 1, bytes: 8 });
  });

  it("counts a memory stream's rows, and keeps only the units every source knows", async () => {
    const data = new MemoryStreamData(fieldsFromZod(z.object({ n: z.int() })));
    data.addData([{ n: 1 }, { n: 2 }]);
    data.addData([{ n: 3 }, { n: 4 }, { n: 5 }]);
    const memory = new MemoryStreamSource(data);
    expect(await backlogTotals([memory], [0])).toEqual({ rows: 5 });
    expect(await backlogTotals([memory, memory], [1, 2])).toEqual({ rows: 3 });
    const input = folder();
    input.write("a.jsonl", ['{"n":1}']);
    const files = new FileStreamSource(input.dir, { maxFilesPerTrigger: null, pathGlobFilter: null, planSplits: () => [] }, folder().dir);
    expect(await backlogTotals([memory, files], [0, 0])).toEqual({});
  });
});
