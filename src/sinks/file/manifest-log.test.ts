import { mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { CheckpointError } from "../../errors/errors.js";
import { tempDirs } from "../../testing/temp-dirs.js";
import { type ManifestFile, ManifestLog } from "./manifest-log.js";

const folder = tempDirs("sluice-manifest-");
function manifest() {
  const d = folder();
  return { log: new ManifestLog(d.path("_sluice_metadata")), dir: d.path("_sluice_metadata"), file: (name: string) => d.path("_sluice_metadata", name) };
}

const QUERY = "5b1c6a36-0a4f-4c43-9d36-1f2f8c1d0a11";
const part = (batchId: number): ManifestFile => ({ path: `part-${String(batchId).padStart(5, "0")}-00000.json`, size: 10 + batchId, numRows: batchId + 1, modificationTime: 1_767_225_600_000 + batchId });
const entry = (batchId: number, files = [part(batchId)]) => ({ queryId: QUERY, files });

describe("ManifestLog", () => {
  it("writes entry <batchId> as a version line and the JSON of the batch's files", async () => {
    const { log, file } = manifest();
    expect(await log.add(0, entry(0), 10)).toBeNull();
    expect(readFileSync(file("0"), "utf8")).toBe(
      `v1\n{"queryId":"${QUERY}","files":[{"path":"part-00000-00000.json","size":10,"numRows":1,"modificationTime":1767225600000}]}\n`,
    );
    expect(await log.latest()).toEqual({ batchId: 0, entry: entry(0), file: file("0") });
  });

  it("keeps an existing entry: adding the same batch id again returns the existing entry's file, in either form", async () => {
    const { log, file } = manifest();
    await log.add(0, entry(0), 10);
    expect(await log.add(0, entry(0, []), 10)).toBe(file("0"));
    expect(await log.add(0, entry(0, []), 1)).toBe(file("0"));
    expect(await log.allFiles()).toEqual([part(0)]);
    expect(readdirSync(file(".."), { recursive: true })).toEqual(["_sluice_metadata", "_sluice_metadata/0"]);
  });

  it("is empty before the first batch", async () => {
    const { log } = manifest();
    expect(await log.latest()).toBeNull();
    expect(await log.allFiles()).toEqual([]);
  });

  it("compacts every compactInterval-th batch into <id>.compact holding every live file, deleting older entries", async () => {
    const { log, dir, file } = manifest();
    for (let id = 0; id < 9; id++) await log.add(id, entry(id), 3);
    // Batches 2, 5 and 8 are compaction batches for an interval of 3.
    expect(readdirSync(dir)).toEqual(["8.compact"]);
    expect(readFileSync(file("8.compact"), "utf8")).toBe(`v1\n${JSON.stringify({ queryId: QUERY, files: [0, 1, 2, 3, 4, 5, 6, 7, 8].map(part) })}\n`);
    await log.add(9, entry(9), 3);
    await log.add(10, entry(10, []), 3);
    expect(readdirSync(dir).sort()).toEqual(["10", "8.compact", "9"]);
    expect(await log.allFiles()).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map(part));
    expect(await log.latest()).toEqual({ batchId: 10, entry: entry(10, []), file: file("10") });
    await log.add(11, entry(11), 3);
    expect(readdirSync(dir)).toEqual(["11.compact"]);
    expect(await log.latest()).toEqual({ batchId: 11, entry: { queryId: QUERY, files: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 11].map(part) }, file: file("11.compact") });
  });

  it("spark's default interval 10 compacts at batches 9, 19, ... so the folder holds at most 10 entries", async () => {
    const { log, dir } = manifest();
    for (let id = 0; id < 25; id++) await log.add(id, entry(id), 10);
    expect(readdirSync(dir).sort((a, b) => parseInt(a) - parseInt(b))).toEqual(["19.compact", "20", "21", "22", "23", "24"]);
    expect(await log.allFiles()).toEqual(Array.from({ length: 25 }, (_, id) => part(id)));
  });

  it("reads the newest compact entry and the entries after it, ignoring older ones a crash did not delete", async () => {
    const { log, dir, file } = manifest();
    for (let id = 0; id < 5; id++) await log.add(id, entry(id), 100);
    mkdirSync(dir, { recursive: true });
    writeFileSync(file("2.compact"), `v1\n${JSON.stringify(entry(2, [part(0), part(1), part(2)]))}\n`);
    // A stale entry older than the compact entry, with other contents: never read.
    writeFileSync(file("1"), `v1\n${JSON.stringify(entry(1, [part(7)]))}\n`);
    expect(await log.allFiles()).toEqual([0, 1, 2, 3, 4].map(part));
  });

  it("a manifest may start at any batch id (a query that wrote to another sink before), but not have a gap", async () => {
    const { log, dir, file } = manifest();
    await log.add(4, entry(4), 10);
    await log.add(5, entry(5), 10);
    expect(await log.allFiles()).toEqual([part(4), part(5)]);
    await log.add(7, entry(7), 10);
    const gap = `file sink manifest ${dir} has a gap: ${file("6")} is missing (batch 5 is followed by 7); it was modified outside Sluice`;
    await expect(log.allFiles()).rejects.toThrow(CheckpointError);
    await expect(log.allFiles()).rejects.toThrow(gap);
    await expect(log.latest()).rejects.toThrow(gap);
  });

  it("a gap after a compact entry is an error", async () => {
    const { log, file } = manifest();
    for (let id = 0; id < 3; id++) await log.add(id, entry(id), 3);
    await log.add(4, entry(4), 3);
    await expect(log.allFiles()).rejects.toThrow(`has a gap: ${file("3")} is missing (batch 2 is followed by 4)`);
  });

  it.each([
    ["a newer format", "v2\n{}\n", (f: string) => `checkpoint file ${f} was written by a newer Sluice (log version 2, this one reads up to 1); upgrade Sluice`],
    ["no version line", '{"queryId":"q","files":[]}\n', (f: string) => `checkpoint file ${f} is corrupt: it does not start with a version line such as "v1"`],
    ["a partial entry", 'v1\n{"queryId":"q","files":[{"path":"part-0', (f: string) => `checkpoint file ${f} is corrupt: Unterminated string in JSON at position 39`],
    ["an empty file", "", (f: string) => `checkpoint file ${f} is corrupt: it does not start with a version line such as "v1"`],
    ["a missing size", 'v1\n{"queryId":"q","files":[{"path":"a.json","numRows":1,"modificationTime":0}]}\n', (f: string) => `checkpoint file ${f} is corrupt: not the entry Sluice writes here (Invalid input: expected number, received undefined at files.0.size)`],
    ["a path outside the folder", 'v1\n{"queryId":"q","files":[{"path":"../../etc/passwd","size":1,"numRows":1,"modificationTime":0}]}\n', (f: string) => `checkpoint file ${f} is corrupt: not the entry Sluice writes here (must be a file name inside the output folder at files.0.path)`],
    ["no query id", 'v1\n{"files":[]}\n', (f: string) => `checkpoint file ${f} is corrupt: not the entry Sluice writes here (Invalid input: expected string, received undefined at queryId)`],
  ])("refuses an entry with %s, naming the file", async (_what, text, message) => {
    const { log, dir, file } = manifest();
    mkdirSync(dir, { recursive: true });
    writeFileSync(file("0"), text);
    await expect(log.allFiles()).rejects.toThrow(CheckpointError);
    await expect(log.allFiles()).rejects.toThrow(message(file("0")));
  });

  it("refuses a corrupt compact entry, naming it", async () => {
    const { log, dir, file } = manifest();
    mkdirSync(dir, { recursive: true });
    writeFileSync(file("9.compact"), "v1\n{");
    await expect(log.latest()).rejects.toThrow(`checkpoint file ${file("9.compact")} is corrupt`);
  });

  it("lists again when an entry vanishes between listing and reading (a compaction), a bounded number of times", async () => {
    const { log, dir, file } = manifest();
    await log.add(0, entry(0), 10);
    // A link to nothing: listed, then gone when read, every time.
    symlinkSync(file("missing"), file("1"));
    await expect(log.allFiles()).rejects.toThrow(
      new CheckpointError(`file sink manifest entry ${file("1")} disappeared while the log was read, 3 times; another process is compacting ${dir} faster than it can be read`),
    );
  });

  it("ignores temp files and names that are not entries", async () => {
    const { log, dir, file } = manifest();
    await log.add(0, entry(0), 10);
    writeFileSync(file(".1.123.456.tmp"), "v1\n{");
    writeFileSync(file("README"), "notes");
    expect(await log.allFiles()).toEqual([part(0)]);
    rmSync(dir, { recursive: true });
    expect(await log.latest()).toBeNull();
  });
});
