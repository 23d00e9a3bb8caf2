import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OptionError, SluiceError } from "../../errors/errors.js";
import { globToRegExp } from "./glob.js";
import { listFiles } from "./list-files.js";

let dir: string;
const names = (files: { path: string }[]) => files.map((f) => f.path.slice(dir.length + 1));

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "sluice-list-"));
  // name -> modification time (seconds); b and d share one, so the name breaks the tie.
  const files: [string, number, string][] = [
    ["a.jsonl", 3000, "{}\n"],
    ["b.jsonl", 1000, "{}\n{}\n"],
    ["d.jsonl", 1000, ""],
    ["c.json", 2000, "{}"],
    ["notes.txt", 500, "x"],
    [".hidden.jsonl", 100, "{}"],
    ["_SUCCESS", 100, ""],
    ["_part.jsonl", 100, "{}"],
    ["e.jsonl._COPYING_", 100, "{}"],
  ];
  for (const [name, mtime, text] of files) {
    writeFileSync(join(dir, name), text);
    utimesSync(join(dir, name), mtime, mtime);
  }
  mkdirSync(join(dir, "sub.jsonl"));
  writeFileSync(join(dir, "sub.jsonl", "inner.jsonl"), "{}");
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("listFiles", () => {
  it("lists data files oldest first (then by name), skipping hidden, _-prefixed, in-copy files and directories", async () => {
    const files = await listFiles(dir, { pathGlobFilter: null });
    expect(names(files)).toEqual(["notes.txt", "b.jsonl", "d.jsonl", "c.json", "a.jsonl"]);
    expect(files[1]).toEqual({ path: join(dir, "b.jsonl"), size: 6, mtimeMs: 1_000_000 });
  });

  it.each([
    ["*.jsonl", ["b.jsonl", "d.jsonl", "a.jsonl"]],
    ["?.json", ["c.json"]],
    ["*.json*", ["b.jsonl", "d.jsonl", "c.json", "a.jsonl"]],
    ["[ab].jsonl", ["b.jsonl", "a.jsonl"]],
    ["[!ab].*", ["d.jsonl", "c.json"]],
    ["{a,c}.*", ["c.json", "a.jsonl"]],
    ["notes.txt", ["notes.txt"]],
    ["*.csv", []],
  ])("filters names with the glob %s", async (glob, expected) => {
    expect(names(await listFiles(dir, { pathGlobFilter: glob }))).toEqual(expected);
  });

  it("names the directory and the OS error when it cannot list it", async () => {
    const missing = join(dir, "missing");
    const error = await listFiles(missing, { pathGlobFilter: null }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SluiceError);
    expect((error as Error).message).toBe(`cannot list input directory ${missing}: ENOENT: no such file or directory`);
    await expect(listFiles(join(dir, "a.jsonl"), { pathGlobFilter: null })).rejects.toThrow(
      `cannot list input directory ${join(dir, "a.jsonl")}: ENOTDIR: not a directory`,
    );
  });
});

describe("globToRegExp", () => {
  it("matches whole names, takes regular-expression characters literally and honours backslash escapes", () => {
    expect(globToRegExp("a.b").test("a.b")).toBe(true);
    expect(globToRegExp("a.b").test("axb")).toBe(false);
    expect(globToRegExp("*.jsonl").test("x.jsonl.tmp")).toBe(false);
    expect(globToRegExp("(x)+$^|").test("(x)+$^|")).toBe(true);
    expect(globToRegExp("\\*.txt").test("*.txt")).toBe(true);
    expect(globToRegExp("\\*.txt").test("a.txt")).toBe(false);
    expect(globToRegExp("[]a]").test("]")).toBe(true);
  });

  it("rejects an unclosed '{'", () => {
    expect(() => globToRegExp("{a,b")).toThrow(OptionError);
  });
});
