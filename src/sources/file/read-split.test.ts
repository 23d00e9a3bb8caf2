import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { field } from "../../batch/batch.js";
import { SluiceError } from "../../errors/errors.js";
import { decodeJsonLines } from "../../formats/json-lines.js";
import { batchRows } from "../../formats/test-rows.js";
import { planFileSplits } from "./plan-splits.js";
import { readSplit, readSplitSync } from "./read-split.js";
import { decodeFileSplit } from "./decode-split.js";

/**
 * fixtures/json/clicks.jsonl: 240 click records of 150 to 600 bytes (some with multi-byte
 * characters), every 9th line ending in \r\n, blank and whitespace-only lines mixed in, and no
 * newline after the last record.
 */
const CLICKS = fileURLToPath(new URL("../../../fixtures/json/clicks.jsonl", import.meta.url));
const whole = new Uint8Array(readFileSync(CLICKS));
const fields = [
  field("seq", "int32", false),
  field("user", "string"),
  field("page", "string"),
  field("price", "float64"),
  field("clicks", "int32"),
  field("mobile", "boolean"),
  field("eventTime", "timestamp"),
  field("note", "string"),
];
const OPTIONS = { mode: "FAILFAST", columnNameOfCorruptRecord: "_corrupt_record" } as const;

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

describe("readSplit", () => {
  it.each([1, 2, 3, 7])("reading the file as %i splits gives every record exactly once, in order", async (count) => {
    const splits = planFileSplits([{ path: CLICKS, size: whole.length }], Math.ceil(whole.length / count));
    expect(splits.length).toBe(count);
    const rows = [];
    for (const split of splits) rows.push(...batchRows((await decodeFileSplit(split, fields, OPTIONS)).batch));
    expect(rows.map((r) => r.seq)).toEqual(Array.from({ length: 240 }, (_, i) => i + 1));
    expect(rows).toEqual(batchRows(decodeJsonLines(whole, fields, OPTIONS).batch));
  });

  it("gives back the file's bytes exactly, whatever byte a boundary falls on (lines straddling it included)", () => {
    // Every byte around each line ending (before, on and after "\r", "\n"), and a stride in between.
    const cuts = new Set<number>([0, whole.length]);
    whole.forEach((b, i) => {
      if (b === 0x0a) for (let d = -2; d <= 2; d++) cuts.add(Math.min(whole.length, Math.max(0, i + d)));
    });
    for (let cut = 0; cut < whole.length; cut += 97) cuts.add(cut);
    const mismatches: number[] = [];
    for (const cut of cuts) {
      const left = readSplitSync({ path: CLICKS, start: 0, end: cut });
      const right = readSplitSync({ path: CLICKS, start: cut, end: whole.length });
      if (Buffer.compare(concat([left.bytes, right.bytes]), whole) !== 0) mismatches.push(cut);
    }
    expect(mismatches).toEqual([]);
    expect(cuts.size).toBeGreaterThan(1500);
  });

  it("gives back the file's bytes exactly when cut into three at random places", () => {
    let seed = 99;
    const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % (whole.length + 1);
    for (let trial = 0; trial < 300; trial++) {
      const [a, b] = [next(), next()].sort((x, y) => x - y) as [number, number];
      const parts = [
        [0, a],
        [a, b],
        [b, whole.length],
      ].map(([start, end]) => readSplitSync({ path: CLICKS, start: start!, end: end! }).bytes);
      expect(Buffer.compare(concat(parts), whole), `cuts ${a}, ${b}`).toBe(0);
    }
  });

  it("reports where its bytes start, and the first line number only for a split at the start of the file", async () => {
    const firstNewline = whole.indexOf(0x0a);
    expect(await readSplit({ path: CLICKS, start: 0, end: 10 })).toMatchObject({ fileOffset: 0, firstLineNumber: 1 });
    const second = await readSplit({ path: CLICKS, start: 10, end: 2000 });
    expect([second.fileOffset, second.firstLineNumber]).toEqual([firstNewline + 1, null]);
    expect(second.bytes[0]).toBe(0x7b);
  });

  it("gives a line starting exactly at the split's start to that split, and one starting at its end to the next", () => {
    const nl = whole.indexOf(0x0a);
    const lineStart = nl + 1;
    expect(readSplitSync({ path: CLICKS, start: lineStart, end: lineStart + 1 }).fileOffset).toBe(lineStart);
    const before = readSplitSync({ path: CLICKS, start: 0, end: lineStart });
    expect(before.bytes.length).toBe(lineStart); // only the first line
  });

  it("gives no bytes for an empty range or a range inside one line", () => {
    expect(readSplitSync({ path: CLICKS, start: 5, end: 5 }).bytes.length).toBe(0);
    expect(readSplitSync({ path: CLICKS, start: 5, end: 20 }).bytes.length).toBe(0);
    expect(readSplitSync({ path: CLICKS, start: whole.length - 3, end: whole.length }).bytes.length).toBe(0);
  });

  it("names the path and the OS error for a file it cannot read", async () => {
    const missing = "/nonexistent-sluice-dir/a.jsonl";
    await expect(readSplit({ path: missing, start: 0, end: 10 })).rejects.toThrow(
      new SluiceError(`cannot read input file ${missing}: ENOENT: no such file or directory`),
    );
    expect(() => readSplitSync({ path: missing, start: 0, end: 10 })).toThrow(`cannot read input file ${missing}: ENOENT: no such file or directory`);
    const directory = fileURLToPath(new URL("../../../fixtures/json", import.meta.url));
    expect(() => readSplitSync({ path: directory, start: 0, end: 10 })).toThrow(`cannot read input file ${directory}: EISDIR: illegal operation on a directory`);
  });
});
