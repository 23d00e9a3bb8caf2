import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { field } from "../../batch/batch.js";
import { MalformedRecordError } from "../../errors/errors.js";
import { batchRows } from "../../formats/test-rows.js";
import { decodeFileSplit, decodeFileSplitSync } from "./decode-split.js";
import { lineNumberAt, lineNumberAtSync } from "./line-number.js";
import { planFileSplits } from "./plan-splits.js";
import { readSplitSync } from "./read-split.js";

let dir: string;
let badFile: string;
let longLines: string;
const LONG = "y".repeat(200_000); // longer than the bytes a split reads ahead, so reading on must grow its buffer
const fields = [field("n", "int32", false), field("s", "string")];
const failFast = { mode: "FAILFAST", columnNameOfCorruptRecord: "_corrupt_record" } as const;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "sluice-split-"));
  // 100 lines, line 77 is bad; blank line 50 still counts as a line.
  const lines = Array.from({ length: 100 }, (_, i) => (i === 49 ? "" : i === 76 ? '{"n":"seventy-seven"}' : `{"n":${i + 1},"s":"${"x".repeat(i)}"}`));
  badFile = join(dir, "bad.jsonl");
  writeFileSync(badFile, lines.join("\n") + "\n");
  longLines = join(dir, "long.jsonl");
  writeFileSync(longLines, `{"n":1,"s":"a"}\n{"n":2,"s":"${LONG}"}\r\n{"n":3,"s":"c"}\n`);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("decodeFileSplit", () => {
  it("reports the file's line number in FAILFAST errors from a split that does not start the file", async () => {
    const message = `record does not match the schema at line 77 of ${badFile}: field "n" expects int32, got string "seventy-seven"`;
    const size = (await import("node:fs")).statSync(badFile).size;
    for (const splits of [planFileSplits([{ path: badFile, size }], size), planFileSplits([{ path: badFile, size }], Math.ceil(size / 5))]) {
      const errors = await Promise.all(splits.map((s) => decodeFileSplit(s, fields, failFast).then(() => null, (e: unknown) => e)));
      const thrown = errors.filter((e) => e !== null);
      expect(thrown.length).toBe(1);
      expect(thrown[0]).toBeInstanceOf(MalformedRecordError);
      expect([(thrown[0] as MalformedRecordError).message, (thrown[0] as MalformedRecordError).line]).toEqual([message, 77]);
      const syncErrors = splits.map((s) => {
        try {
          decodeFileSplitSync(s, fields, failFast);
          return null;
        } catch (e) {
          return (e as Error).message;
        }
      });
      expect(syncErrors.filter((e) => e !== null)).toEqual([message]);
    }
  });

  it("keeps a line longer than the read-ahead whole, whichever split it starts in", async () => {
    const size = (await import("node:fs")).statSync(longLines).size;
    for (const target of [size, 100_000, 30_000, 999]) {
      const rows = [];
      for (const split of planFileSplits([{ path: longLines, size }], target)) rows.push(...batchRows(decodeFileSplitSync(split, fields, failFast).batch));
      expect(rows).toEqual([
        { n: 1, s: "a" },
        { n: 2, s: LONG },
        { n: 3, s: "c" },
      ]);
    }
    expect(readSplitSync({ path: longLines, start: 10, end: 20 }).bytes.length).toBe(LONG.length + 16);
  });
});

describe("lineNumberAt", () => {
  it("counts the newlines before a byte offset", async () => {
    const text = '{"n":1}\n\n{"n":3}\n';
    const path = join(dir, "numbers.jsonl");
    writeFileSync(path, text);
    expect(await Promise.all([0, 7, 8, 9, 12, 17].map((offset) => lineNumberAt(path, offset)))).toEqual([1, 1, 2, 3, 3, 4]);
    expect(lineNumberAtSync(path, 9)).toBe(3);
  });
});
