import { describe, expect, it } from "vitest";
import { field } from "../batch/batch.js";
import type { DType } from "../types/dtype.js";
import { decodeJsonLines } from "./json-lines.js";
import { batchRows, seededRandom } from "./test-rows.js";
import type { PlainValue } from "./test-rows.js";

/**
 * Differential checks against the platform's JSON.parse and Number: seeded random records and
 * number texts, so a failure reproduces exactly.
 */

const random = seededRandom;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

describe("decodeJsonLines agrees with JSON.parse", () => {
  it("on random number texts (digits, fractions, exponents, long mantissas)", () => {
    const rnd = random(1);
    const digits = (n: number) => Array.from({ length: n }, () => Math.floor(rnd() * 10)).join("");
    const texts: string[] = [];
    for (let i = 0; i < 20_000; i++) {
      const intPart = rnd() < 0.2 ? "0" : String(1 + Math.floor(rnd() * 9)) + digits(Math.floor(rnd() * 20));
      const fraction = rnd() < 0.6 ? `.${digits(1 + Math.floor(rnd() * 20))}` : "";
      const exponent = rnd() < 0.4 ? `${rnd() < 0.5 ? "e" : "E"}${["", "+", "-"][Math.floor(rnd() * 3)]}${Math.floor(rnd() * 330)}` : "";
      texts.push(`${rnd() < 0.3 ? "-" : ""}${intPart}${fraction}${exponent}`);
    }
    const bytes = encoder.encode(texts.map((t) => `{"x":${t}}`).join("\n"));
    const rows = batchRows(decodeJsonLines(bytes, [field("x", "float64")], { mode: "FAILFAST", columnNameOfCorruptRecord: "_c" }).batch);
    const mismatches = texts.filter((t, i) => !Object.is(rows[i]!.x, Number(t)));
    expect(mismatches).toEqual([]);
  });

  it("on random records: key order, duplicates, whitespace, escapes, unicode and nested unknown fields", () => {
    const rnd = random(2);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(rnd() * items.length)]!;
    const alphabet = ["a", "Z", " ", '"', "\\", "/", "\n", "\t", "\u0001", "é", "中", "😀", "\ud800", "}", "]", ",", ":"];
    const randomString = () => Array.from({ length: Math.floor(rnd() * 12) }, () => pick(alphabet)).join("");
    const space = () => pick(["", "", "", " ", "  ", "\t", " \r "]);
    const schema: [string, DType][] = [
      ["s", "string"],
      ["f", "float64"],
      ["i", "int32"],
      ["l", "int64"],
      ["b", "boolean"],
      ["t", "timestamp"],
      ["ключ", "string"],
    ];
    const fields = schema.map(([name, type]) => field(name, type));
    const valueOf = (type: DType): unknown => {
      if (rnd() < 0.1) return null;
      switch (type) {
        case "float64":
          return pick([0, -1.5, 1e-300, 123.456, (rnd() - 0.5) * 1e6, 1e21, 2 ** 60]);
        case "int32":
          return Math.floor((rnd() - 0.5) * 2 ** 32);
        case "int64":
          return Math.floor((rnd() - 0.5) * 2 ** 54);
        case "boolean":
          return rnd() < 0.5;
        case "timestamp":
          return Math.floor((rnd() - 0.3) * 4e12);
        default:
          return randomString();
      }
    };
    const nested = (depth: number): unknown => {
      const r = rnd();
      if (depth > 3 || r < 0.4) return pick([1, -2.5e-7, "x", randomString(), true, false, null]);
      if (r < 0.7) return Array.from({ length: Math.floor(rnd() * 4) }, () => nested(depth + 1));
      return Object.fromEntries(Array.from({ length: Math.floor(rnd() * 4) }, (_, k) => [`k${k}${randomString()}`, nested(depth + 1)]));
    };
    const serialize = (v: unknown): string => {
      if (Array.isArray(v)) return `[${space()}${v.map(serialize).join(`${space()},${space()}`)}${space()}]`;
      if (v !== null && typeof v === "object") {
        return `{${space()}${Object.entries(v).map(([k, x]) => `${JSON.stringify(k)}${space()}:${space()}${serialize(x)}`).join(`${space()},${space()}`)}${space()}}`;
      }
      return JSON.stringify(v);
    };

    const lines: string[] = [];
    for (let n = 0; n < 3000; n++) {
      const entries: [string, unknown][] = [];
      for (const [name, type] of schema) {
        if (rnd() < 0.15) continue; // missing
        const value = valueOf(type);
        entries.push([name, type === "timestamp" && value !== null && rnd() < 0.5 ? new Date(value as number).toISOString() : value]);
        if (rnd() < 0.05) entries.push([name, valueOf(type)]); // a duplicate key
      }
      for (let u = Math.floor(rnd() * 3); u > 0; u--) entries.push([`unknown${randomString()}`, nested(0)]);
      entries.sort(() => rnd() - 0.5);
      const members = entries.map(([k, v]) => `${JSON.stringify(k)}${space()}:${space()}${serialize(v)}`);
      lines.push(`${space()}{${space()}${members.join(`${space()},${space()}`)}${space()}}${space()}`);
    }
    // JSON.parse also keeps a duplicate key's last value.
    const fromParse = lines.map((line) => {
      const parsed = JSON.parse(line) as Record<string, unknown>;
      return Object.fromEntries(schema.map(([name, type]) => [name, name in parsed ? expectedValue(type, parsed[name]) : null]));
    });
    const result = decodeJsonLines(encoder.encode(lines.join(rnd() < 0.5 ? "\n" : "\r\n")), fields, { mode: "FAILFAST", columnNameOfCorruptRecord: "_c" });
    expect(batchRows(result.batch)).toEqual(fromParse);
  });
});

/** What a JSON value decodes to in a field of `type`, by the platform's own conversions. */
function expectedValue(type: DType, value: unknown): PlainValue {
  if (value === null) return null;
  switch (type) {
    case "string":
      return decoder.decode(encoder.encode(value as string)); // lone surrogates become U+FFFD
    case "int64":
      return BigInt(value as number);
    case "timestamp":
      return new Date(typeof value === "string" ? Date.parse(value) : (value as number)).toISOString();
    default:
      return value as PlainValue;
  }
}
