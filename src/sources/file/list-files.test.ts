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

describe("listFiles on a file sink's folder", () => {
  let out: string;
  const namesIn = (files: { path: string }[]) => files.map((f) => f.path.slice(out.length + 1));
  const entry = (files: { path: string; size: number; mtime: number }[]) =>
    `v1\n${JSON.stringify({ queryId: "q", files: files.map((f) => ({ path: f.path, size: f.size, numRows: 1, modificationTime: f.mtime })) })}\n`;

  beforeAll(() => {
    out = mkdtempSync(join(tmpdir(), "sluice-list-sink-"));
    mkdirSync(join(out, "_sluice_metadata"));
    for (const name of ["part-00000-00000.json", "part-00001-00000.json", "part-00001-00001.json", "part-00002-00000.json", "notes.txt"]) writeFileSync(join(out, name), "{}\n");
    writeFileSync(join(out, "_sluice_metadata", "0"), entry([{ path: "part-00000-00000.json", size: 3, mtime: 2000 }]));
    writeFileSync(
      join(out, "_sluice_metadata", "1"),
      entry([
        { path: "part-00001-00001.json", size: 3, mtime: 3000 },
        { path: "part-00001-00000.json", size: 3, mtime: 3000 },
      ]),
    );
    // part-00002-00000.json: a batch that crashed before its manifest entry.
  });

  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it("lists the files the manifest committed, oldest first, with the size and time it recorded; never orphans or the manifest", async () => {
    expect(await listFiles(out, { pathGlobFilter: null })).toEqual([
      { path: join(out, "part-00000-00000.json"), size: 3, mtimeMs: 2000 },
      { path: join(out, "part-00001-00000.json"), size: 3, mtimeMs: 3000 },
      { path: join(out, "part-00001-00001.json"), size: 3, mtimeMs: 3000 },
    ]);
  });

  it("applies pathGlobFilter to the committed files' names", async () => {
    expect(namesIn(await listFiles(out, { pathGlobFilter: "part-00001-*" }))).toEqual(["part-00001-00000.json", "part-00001-00001.json"]);
  });

  it("fails naming the entry when the manifest is corrupt", async () => {
    const broken = mkdtempSync(join(tmpdir(), "sluice-list-sink-"));
    try {
      mkdirSync(join(broken, "_sluice_metadata"));
      writeFileSync(join(broken, "_sluice_metadata", "0"), "v1\n{");
      await expect(listFiles(broken, { pathGlobFilter: null })).rejects.toThrow(`checkpoint file ${join(broken, "_sluice_metadata", "0")} is corrupt`);
    } finally {
      rmSync(broken, { recursive: true, force: true });
    }
  });
});
