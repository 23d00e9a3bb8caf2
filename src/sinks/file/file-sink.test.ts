import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { field } from "../../batch/batch.js";
import { batchToRows, rowsToBatch } from "../../batch/rows.js";
import type { FileSinkFormat } from "../../config/file-sink-options.js";
import { AnalysisError, CheckpointError, SluiceError } from "../../errors/errors.js";
import { decodeArrowFile } from "../../formats/arrow-file.js";
import { decodeParquetFile } from "../../formats/parquet-file.js";
import { at } from "../../testing/fixtures.js";
import { tempDirs } from "../../testing/temp-dirs.js";
import type { Fields } from "../../types/dtype.js";
import { FileSink } from "./file-sink.js";

const folder = tempDirs("sluice-file-sink-");

const QUERY = "0f8e5c7a-2b1d-4e6f-9a3c-5d7e9f1b3c5d";
const CONTEXT = { queryId: QUERY, checkpointLocation: "/unused", outputMode: "append" } as const;
const FIELDS: Fields = [field("word", "string"), field("n", "int64"), field("ok", "boolean"), field("time", "timestamp"), field("window", "window")];
const row = (k: number) => ({
  word: k % 2 ? `w${k}` : null,
  n: k,
  ok: k % 3 === 0 ? null : k % 3 === 1,
  time: at("10:00", k),
  window: k === 2 ? null : { start: at("10:00"), end: at("10:01") },
});
const rows = (...ks: number[]) => ks.map(row);

async function openSink(path: string, options: { format?: FileSinkFormat; maxRecordsPerFile?: number; compactInterval?: number; queryId?: string } = {}) {
  const sink = new FileSink({ format: options.format ?? "json", path, maxRecordsPerFile: options.maxRecordsPerFile ?? 0, compactInterval: options.compactInterval ?? 10 }, FIELDS);
  await sink.open({ ...CONTEXT, queryId: options.queryId ?? QUERY });
  return sink;
}

const read = (path: string) => readFileSync(path, "utf8");
const manifestEntry = (path: string, id: number) => JSON.parse(read(`${path}/_sluice_metadata/${id}`).split("\n")[1]!);

describe("FileSink", () => {
  it("writes a batch into part-<batch>-<task> files, then its manifest entry listing them", async () => {
    const d = folder();
    const sink = await openSink(d.dir);
    await sink.addBatch(0, rowsToBatch(rows(1, 2), FIELDS));
    expect(readdirSync(d.dir)).toEqual(["_sluice_metadata", "part-00000-00000.json"]);
    expect(read(d.path("part-00000-00000.json"))).toBe(
      '{"word":"w1","n":1,"ok":true,"time":"2026-01-01T10:00:01.000Z","window":{"start":"2026-01-01T10:00:00.000Z","end":"2026-01-01T10:01:00.000Z"}}\n' +
        '{"n":2,"ok":false,"time":"2026-01-01T10:00:02.000Z"}\n',
    );
    const s = statSync(d.path("part-00000-00000.json"));
    expect(read(d.path("_sluice_metadata", "0"))).toBe(
      `v1\n{"queryId":"${QUERY}","files":[{"path":"part-00000-00000.json","size":${s.size},"numRows":2,"modificationTime":${s.mtimeMs}}]}\n`,
    );
  });

  it.each(["json", "parquet", "arrow"] as const)("splits a batch into files of at most maxRecordsPerFile rows (%s), each holding its own rows", async (format) => {
    const d = folder();
    const sink = await openSink(d.dir, { format, maxRecordsPerFile: 2 });
    await sink.addBatch(3, rowsToBatch(rows(0, 1, 2, 3, 4), FIELDS));
    const names = [0, 1, 2].map((t) => `part-00003-0000${t}.${format}`);
    expect(readdirSync(d.dir)).toEqual(["_sluice_metadata", ...names]);
    expect(manifestEntry(d.dir, 3).files.map((f: { path: string; numRows: number }) => [f.path, f.numRows])).toEqual([
      [names[0], 2],
      [names[1], 2],
      [names[2], 1],
    ]);
    const decode = (name: string) => {
      const bytes = readFileSync(d.path(name));
      if (format === "parquet") return batchToRows(decodeParquetFile(bytes, FIELDS, name));
      if (format === "arrow") return batchToRows(decodeArrowFile(bytes, FIELDS, name));
      return bytes.toString("utf8").trimEnd().split("\n").map((l) => JSON.parse(l).n);
    };
    const expected = format === "json" ? [[0, 1], [2, 3], [4]] : [rows(0, 1), rows(2, 3), rows(4)];
    expect(names.map(decode)).toEqual(expected);
  });

  it("is idempotent: a batch id the manifest holds is skipped, in this run and after a restart", async () => {
    const d = folder();
    const sink = await openSink(d.dir);
    await sink.addBatch(0, rowsToBatch(rows(1), FIELDS));
    const before = { text: read(d.path("part-00000-00000.json")), mtime: statSync(d.path("part-00000-00000.json")).mtimeMs, entry: read(d.path("_sluice_metadata", "0")) };
    await sink.addBatch(0, rowsToBatch(rows(5, 7), FIELDS));
    const restarted = await openSink(d.dir);
    await restarted.addBatch(0, rowsToBatch(rows(9), FIELDS));
    expect(readdirSync(d.dir)).toEqual(["_sluice_metadata", "part-00000-00000.json"]);
    expect({ text: read(d.path("part-00000-00000.json")), mtime: statSync(d.path("part-00000-00000.json")).mtimeMs, entry: read(d.path("_sluice_metadata", "0")) }).toEqual(before);
    await restarted.addBatch(1, rowsToBatch(rows(3), FIELDS));
    expect(readdirSync(d.path("_sluice_metadata"))).toEqual(["0", "1"]);
  });

  it("replaces the files a crashed run of the same batch left behind", async () => {
    const d = folder();
    const sink = await openSink(d.dir);
    writeFileSync(d.path("part-00000-00000.json"), "half a line from a crashed run");
    await sink.addBatch(0, rowsToBatch(rows(1), FIELDS));
    expect(read(d.path("part-00000-00000.json"))).toBe('{"word":"w1","n":1,"ok":true,"time":"2026-01-01T10:00:01.000Z","window":{"start":"2026-01-01T10:00:00.000Z","end":"2026-01-01T10:01:00.000Z"}}\n');
    expect(readdirSync(d.dir)).toEqual(["_sluice_metadata", "part-00000-00000.json"]);
  });

  it("commits an empty batch as an entry without files", async () => {
    const d = folder();
    const sink = await openSink(d.dir);
    await sink.addBatch(0, rowsToBatch([], FIELDS));
    expect(readdirSync(d.dir)).toEqual(["_sluice_metadata"]);
    expect(manifestEntry(d.dir, 0)).toEqual({ queryId: QUERY, files: [] });
  });

  it("compacts its manifest every compactInterval batches", async () => {
    const d = folder();
    const sink = await openSink(d.dir, { compactInterval: 2 });
    for (let id = 0; id < 5; id++) await sink.addBatch(id, rowsToBatch(rows(id), FIELDS));
    expect(readdirSync(d.path("_sluice_metadata"))).toEqual(["3.compact", "4"]);
    expect(readdirSync(d.dir).filter((n) => n.startsWith("part-"))).toHaveLength(5);
  });

  it("refuses a folder another query wrote, naming the entry and both queries", async () => {
    const d = folder();
    await (await openSink(d.dir)).addBatch(0, rowsToBatch(rows(1), FIELDS));
    const other = "7c6b5a49-3827-4615-a4b3-c2d1e0f9a8b7";
    const error = await openSink(d.dir, { queryId: other }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CheckpointError);
    expect((error as Error).message).toBe(
      `${d.path("_sluice_metadata", "0")} was written by query ${QUERY}, not by this query (${other}): ${d.dir} holds another query's output. ` +
        "Write to a new path, or run that query from its own checkpointLocation.",
    );
  });

  it("refuses a batch id past the end of the manifest: checkpoint and folder do not belong together", async () => {
    const d = folder();
    const sink = await openSink(d.dir);
    await sink.addBatch(0, rowsToBatch(rows(1), FIELDS));
    await expect(sink.addBatch(2, rowsToBatch(rows(2), FIELDS))).rejects.toThrow(
      new CheckpointError(`${d.path("_sluice_metadata", "1")} is missing: the manifest ends at batch 0 but the query is writing batch 2; the checkpoint and ${d.dir} do not belong together`),
    );
  });

  it("stops when another writer added the same batch's entry meanwhile: two queries write one folder", async () => {
    const d = folder();
    const first = await openSink(d.dir);
    const second = await openSink(d.dir);
    await first.addBatch(0, rowsToBatch(rows(1), FIELDS));
    await expect(second.addBatch(0, rowsToBatch(rows(2), FIELDS))).rejects.toThrow(
      new CheckpointError(`${d.path("_sluice_metadata", "0")} appeared while batch 0 was being written: another query writes to ${d.dir}; give each query its own path`),
    );
    const compacting = await openSink(d.dir, { compactInterval: 2 });
    await first.addBatch(1, rowsToBatch(rows(3), FIELDS));
    await expect(compacting.addBatch(1, rowsToBatch(rows(4), FIELDS))).rejects.toThrow(`${d.path("_sluice_metadata", "1")} appeared while batch 1`);
    expect(readdirSync(d.path("_sluice_metadata"))).toEqual(["0", "1"]);
  });

  it("describes its guarantee", async () => {
    const d = folder();
    const sink = await openSink(d.path("out"));
    expect([sink.description, sink.guarantee, sink.requiresCheckpoint]).toEqual([`FileSink[${d.path("out")}]`, "idempotent", true]);
    expect(sink.describe()).toBe(
      `FileSink[${d.path("out")}] (idempotent: a batch's json files count once ${d.path("out", "_sluice_metadata")} lists them, and a batch id already listed is skipped)`,
    );
  });

  it("refuses duplicate column names, an output folder it cannot create and a batch before open()", async () => {
    const d = folder();
    expect(() => new FileSink({ format: "parquet", path: d.dir, maxRecordsPerFile: 0, compactInterval: 10 }, [field("a", "string"), field("a", "int32")])).toThrow(
      new AnalysisError(`Found duplicate column(s) in the data to save: \`a\`; rename one with alias() before writing to ${d.dir}`),
    );
    const file = d.write("taken", ["x"]);
    const error = await openSink(`${file}/out`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SluiceError);
    expect((error as Error).message).toMatch(new RegExp(`^cannot create the output folder ${file}/out: ENOTDIR`));
    const unopened = new FileSink({ format: "json", path: d.dir, maxRecordsPerFile: 0, compactInterval: 10 }, FIELDS);
    await expect(unopened.addBatch(0, rowsToBatch([], FIELDS))).rejects.toThrow(`FileSink[${d.dir}]: addBatch(0) before open(); the query opens its sink first`);
  });
});
