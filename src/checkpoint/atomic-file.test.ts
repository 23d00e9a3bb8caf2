import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CheckpointError } from "../errors/errors.js";
import { tempDir } from "../testing/temp-dir.js";
import { isLeftoverTempFile, isTempFile, readBytesSync, removeFilesSync, writeFileAtomic, writeFileAtomicSync, writeIfAbsent, writeIfAbsentSync } from "./atomic-file.js";

const temp = tempDir("sluice-atomic-");
beforeEach(() => mkdirSync(temp.dir, { recursive: true }));
afterEach(() => temp.remove());

describe.each([
  ["asynchronously", (file: string, content: string | Uint8Array) => writeIfAbsent(file, content)],
  ["synchronously", async (file: string, content: string | Uint8Array) => writeIfAbsentSync(file, content)],
])("writeIfAbsent, %s", (_, write) => {
  it("writes text or bytes once, creating folders, and never overwrites", async () => {
    const file = temp.path("a", "b", "entry");
    expect(await write(file, "v1\n{}\n")).toBe(true);
    expect(await write(file, Uint8Array.of(1, 2, 3))).toBe(false);
    expect(readFileSync(file, "utf8")).toBe("v1\n{}\n");
    expect(await write(temp.path("bytes"), Uint8Array.of(1, 2, 3))).toBe(true);
    expect([...readFileSync(temp.path("bytes"))]).toEqual([1, 2, 3]);
    expect(readdirSync(temp.path("a", "b"))).toEqual(["entry"]);
  });

  it("names the path it could not write", async () => {
    writeFileSync(temp.path("file"), "");
    await expect(write(temp.path("file", "entry"), "x")).rejects.toThrow(CheckpointError);
    await expect(write(temp.path("file", "entry"), "x")).rejects.toThrow(`cannot create directory checkpoint file ${temp.path("file")}: EEXIST`);
    mkdirSync(temp.path("dir", "entry"), { recursive: true });
    expect(await write(temp.path("dir", "entry"), "x")).toBe(false);
  });
});

describe("writeFileAtomic", () => {
  it("abandons the write when the file is no longer wanted, leaving nothing behind", async () => {
    const file = temp.path("snapshot");
    expect(await writeFileAtomic(file, "x", { stillWanted: () => false })).toBe("abandoned");
    expect(writeFileAtomicSync(file, "x", { stillWanted: () => false })).toBe("abandoned");
    expect(readdirSync(temp.dir)).toEqual([]);
  });

  it("calls midWrite once half of the bytes are in the temp file, before the name exists", async () => {
    const file = temp.path("data");
    const seen: string[][] = [];
    const midWrite = (name: string) => () => {
      const [tmp] = readdirSync(temp.dir).filter(isTempFile);
      seen.push([readFileSync(temp.path(tmp!), "utf8"), String(isLeftoverTempFile(tmp!)), String(readdirSync(temp.dir).includes(name))]);
    };
    expect(await writeFileAtomic(file, "abcdefgh", { midWrite: midWrite("data") })).toBe("written");
    expect(writeFileAtomicSync(temp.path("other"), "12345", { midWrite: midWrite("other") })).toBe("written");
    // This process's temp files are never leftovers; the name appears only after the last byte.
    expect(seen).toEqual([
      ["abcd", "false", "false"],
      ["12", "false", "false"],
    ]);
    expect(readFileSync(file, "utf8")).toBe("abcdefgh");
  });

  it("writes bytes in pieces as one file, and stops in the middle of them for midWrite", async () => {
    const pieces = [Uint8Array.of(1, 2, 3), new Uint8Array(0), Uint8Array.of(4, 5), Uint8Array.of(6)];
    const halves: number[][] = [];
    const midWrite = () => halves.push([...readFileSync(temp.path(readdirSync(temp.dir).filter(isTempFile)[0]!))]);
    expect(writeFileAtomicSync(temp.path("sync"), pieces, { midWrite })).toBe("written");
    expect(await writeFileAtomic(temp.path("async"), pieces, { midWrite })).toBe("written");
    expect([[...readFileSync(temp.path("sync"))], [...readFileSync(temp.path("async"))]]).toEqual([
      [1, 2, 3, 4, 5, 6],
      [1, 2, 3, 4, 5, 6],
    ]);
    expect(halves).toEqual([
      [1, 2, 3],
      [1, 2, 3],
    ]);
  });

  it("tells leftover temp files of other processes from its own", () => {
    expect(isTempFile(".3.delta.4242-0badf00d.1.tmp")).toBe(true);
    expect(isLeftoverTempFile(".3.delta.4242-0badf00d.1.tmp")).toBe(true);
    expect(isTempFile("3.delta")).toBe(false);
  });
});

describe("reading and removing", () => {
  it("reads bytes, removes files (a missing one is fine), and names the path otherwise", () => {
    writeFileSync(temp.path("x"), "abc");
    expect(Buffer.from(readBytesSync(temp.path("x"))).toString()).toBe("abc");
    expect(() => readBytesSync(temp.path("missing"))).toThrow(`cannot read checkpoint file ${temp.path("missing")}: ENOENT`);
    removeFilesSync([temp.path("x"), temp.path("missing")]);
    expect(readdirSync(temp.dir)).toEqual([]);
    mkdirSync(temp.path("full", "inside"), { recursive: true });
    expect(() => removeFilesSync([temp.path("full")])).toThrow(`cannot delete checkpoint file ${temp.path("full")}: ERR_FS_EISDIR`);
  });
});
