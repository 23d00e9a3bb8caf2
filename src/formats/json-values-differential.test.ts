import { describe, expect, it } from "vitest";
import { field } from "../batch/batch.js";
import type { ReadMode } from "./read-mode.js";
import { decodeJsonLines } from "./json-lines.js";
import { decodeJsonValues } from "./json-values.js";
import { batchRows, EVERY_TYPE, seededRandom } from "./test-rows.js";

/**
 * decodeJsonValues against decodeJsonLines on the same records, one per line: seeded random good,
 * null and malformed records, so a failure reproduces exactly. A null record is the line "{}",
 * which gives the same all-null row when no field is required.
 */

const random = seededRandom;

const encoder = new TextEncoder();
const fields = [...EVERY_TYPE, field("_c", "string")];

/** Records without newlines or carriage returns, never blank, so that lines frame them alike. */
function randomRecords(count: number, seed: number): (string | null)[] {
  const rnd = random(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rnd() * items.length)]!;
  const space = () => pick(["", "", "", " ", "\t", " \t "]);
  const values: Record<string, readonly unknown[]> = {
    s: ["plain", "with \"quotes\" and \\ and \n escaped", "é中😀", "", 12, true, { a: [1] }, null],
    f: [1.5, -0.25, 1e300, 0, "NaN", "-Infinity", "1.5", null],
    i: [0, -2147483648, 2147483647, 42, 2147483648, 1.5, "7", null],
    l: [9007199254740993, -1, 0, 1e20, "x", null],
    b: [true, false, 0, "true", null],
    t: ["2024-05-01T12:00:00Z", "2024-05-01T12:00:00.123+02:00", 1714521600000, "yesterday", null],
    unknown: [[1, { x: [null, "y"] }], { deep: { deeper: [] } }, "u", 3],
  };
  const records: (string | null)[] = [];
  for (let n = 0; n < count; n++) {
    if (rnd() < 0.05) {
      records.push(null);
      continue;
    }
    const keys = Object.keys(values).filter(() => rnd() < 0.7);
    keys.sort(() => rnd() - 0.5);
    const members = keys.map((k) => `${JSON.stringify(k)}${space()}:${space()}${JSON.stringify(pick(values[k]!))}`);
    let text = `${space()}{${space()}${members.join(`${space()},${space()}`)}${space()}}${space()}`;
    const damage = rnd();
    if (damage < 0.1) {
      const open = text.indexOf("{");
      text = text.slice(0, open + 1 + Math.floor(rnd() * (text.length - open - 1))); // truncated
    } else if (damage < 0.15) {
      text += pick([" x", "{}", ",", "]", '{"s":"next"}']);
    } else if (damage < 0.2) {
      text = pick(["[1]", "1", '"s"', "nul", "{]", '{"s":"bad \\q escape"}', '{"s":"\\ud83d\\u00"}']);
    }
    records.push(text);
  }
  return records;
}

function valuesColumn(records: readonly (string | null)[]) {
  const parts = records.map((r) => encoder.encode(r ?? ""));
  const offsets = new Int32Array(records.length + 1);
  parts.forEach((p, i) => (offsets[i + 1] = offsets[i]! + p.length));
  const bytes = new Uint8Array(offsets[records.length]!);
  parts.forEach((p, i) => bytes.set(p, offsets[i]!));
  return { bytes, offsets, validity: Uint8Array.from(records, (r) => (r === null ? 0 : 1)) };
}

const linesOf = (records: readonly (string | null)[]) => encoder.encode(records.map((r) => `${r ?? "{}"}\n`).join(""));

describe("decodeJsonValues agrees with decodeJsonLines on the same records", () => {
  const records = randomRecords(2000, 7);
  const { bytes, offsets, validity } = valuesColumn(records);
  const lines = linesOf(records);
  // Which records are malformed, from the corrupt-record column of the lines in PERMISSIVE mode.
  const permissive = batchRows(decodeJsonLines(lines, fields, { mode: "PERMISSIVE", columnNameOfCorruptRecord: "_c" }).batch);
  const malformed = permissive.flatMap((row, i) => (row._c === null ? [] : [i]));

  it.each(["PERMISSIVE", "DROPMALFORMED"] as const)("%s: rows, counts, malformed and kept rows", (mode: ReadMode) => {
    const fromLines = decodeJsonLines(lines, fields, { mode, columnNameOfCorruptRecord: "_c" });
    const fromValues = decodeJsonValues(bytes, offsets, validity, fields, { mode, columnNameOfCorruptRecord: "_c" });
    expect(batchRows(fromValues.batch)).toEqual(batchRows(fromLines.batch));
    expect(fromValues.numMalformed).toBe(fromLines.numMalformed);
    expect(malformed.length).toBeGreaterThan(200);
    expect(Array.from(fromValues.malformedRows)).toEqual(malformed);
    const bad = new Set(malformed);
    const kept = records.flatMap((_, i) => (mode === "DROPMALFORMED" && bad.has(i) ? [] : [i]));
    expect(Array.from(fromValues.keptRows)).toEqual(kept);
  });

  it("FAILFAST: the same error for every malformed record", () => {
    const failure = (run: () => unknown): string => {
      try {
        run();
      } catch (e) {
        return (e as Error).message;
      }
      return "no error";
    };
    // Each run starts after the previous malformed record and stops at the next one.
    const fromLines: string[] = [];
    const fromValues: string[] = [];
    for (const [k, end] of [...malformed, records.length].entries()) {
      const start = k === 0 ? 0 : malformed[k - 1]! + 1;
      const part = records.slice(start, end + 1);
      const column = valuesColumn(part);
      const options = { mode: "FAILFAST", columnNameOfCorruptRecord: "_c" } as const;
      // A line ends at its newline where a value ends at the end of its bytes: the same place.
      fromLines.push(failure(() => decodeJsonLines(linesOf(part), fields, { ...options, firstLineNumber: start + 1 })).replaceAll("end of line", "end of input"));
      fromValues.push(failure(() => decodeJsonValues(column.bytes, column.offsets, column.validity, fields, { ...options, describeRecord: (i) => `line ${start + i + 1}` })));
    }
    expect(fromLines.filter((m) => m.includes(" at line ")).length).toBe(malformed.length);
    expect(fromLines.at(-1)).toBe("no error");
    expect(fromValues).toEqual(fromLines);
  });
});
