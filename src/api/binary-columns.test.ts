import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { AnalysisError } from "../errors/errors.js";
import { WORKER_COUNTS, withSession } from "../testing/fixtures.js";
import { addData, checkLastBatch, startStream, stopStream, testStream } from "../testing/stream-test.js";
import { tempDirs } from "../testing/temp-dirs.js";
import { base64, col, count, first, hex, max, unbase64 } from "./functions.js";

/** A message with a binary payload, declared as Sluice reads bytes from zod. */
const Message = z.object({ id: z.int32(), payload: z.instanceof(Uint8Array).nullable() });
const bytes = (...b: number[]) => Uint8Array.from(b);
const utf8 = (s: string) => new TextEncoder().encode(s);
/** Not UTF-8: 0xff 0xfe never occur in it, 0x80 only after a lead byte. */
const NOT_UTF8 = bytes(0xff, 0xfe, 0x00, 0x80);
const messages = [
  { id: 1, payload: utf8("Hel") },
  { id: 2, payload: NOT_UTF8 },
  { id: 3, payload: null },
  { id: 4, payload: utf8("Hel") },
];

const tempFolder = tempDirs();

describe.each(WORKER_COUNTS)("binary columns with %i workers", (workers) => {
  it("select, filter, cast, base64, hex and unbase64 over bytes that are not all text", () =>
    withSession(workers, async (session) => {
      const df = session.createDataFrame(messages, Message);
      const out = await df
        .filter(col("payload").notEqual("Hel").or(col("payload").isNull()))
        .select("id", "payload", col("payload").cast("string").alias("text"), base64(col("payload")).alias("b64"), hex(col("payload")).alias("hex"))
        .collect();
      expect(out).toEqual([
        { id: 2, payload: NOT_UTF8, text: "\uFFFD\uFFFD\u0000\uFFFD", b64: "//4AgA==", hex: "FFFE0080" },
        { id: 3, payload: null, text: null, b64: null, hex: null },
      ]);
      const back = await df.select("id", unbase64(base64(col("payload"))).alias("same")).collect();
      expect(back.map((r) => r.same)).toEqual(messages.map((m) => m.payload));
    }));

  it("groups, orders and deduplicates by bytes", () =>
    withSession(workers, async (session) => {
      const df = session.createDataFrame(messages, Message);
      expect(await df.groupBy("payload").agg(count().alias("n"), max(col("id")).alias("last")).orderBy("payload").collect()).toEqual([
        { payload: null, n: 1, last: 3 },
        { payload: utf8("Hel"), n: 2, last: 4 },
        { payload: NOT_UTF8, n: 1, last: 2 },
      ]);
      expect(await df.dropDuplicates("payload").orderBy(col("payload").desc()).select("id").collect()).toEqual([{ id: 2 }, { id: 1 }, { id: 3 }]);
    }));

  it("keeps binary keys in streaming state across a restart", () =>
    withSession(workers, async (session) => {
      const stream = session.memoryStream(Message);
      const perPayload = stream.toDF().groupBy("payload").count();
      await testStream(perPayload, "update").run(
        addData(stream, { id: 1, payload: NOT_UTF8 }, { id: 2, payload: utf8("a") }),
        checkLastBatch({ payload: NOT_UTF8, count: 1 }, { payload: utf8("a"), count: 1 }),
        stopStream(),
        startStream(),
        addData(stream, { id: 3, payload: NOT_UTF8 }),
        checkLastBatch({ payload: NOT_UTF8, count: 2 }),
      );
    }));
});

describe("binary columns in output", () => {
  it("show() prints bytes as Spark does: upper-case hex pairs in brackets", () =>
    withSession(0, async (session) => {
      const write = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
      try {
        await session.createDataFrame(messages, Message).show(3);
        expect(String(write.mock.calls[0]![0])).toBe(
          ["+---+-------------+", "| id|      payload|", "+---+-------------+", "|  1|   [48 65 6C]|", "|  2|[FF FE 00 80]|", "|  3|         NULL|", "+---+-------------+", "only showing top 3 rows", ""].join("\n"),
        );
      } finally {
        write.mockRestore();
      }
    }));

  it.each(["json", "parquet", "arrow"] as const)("the %s file sink writes the bytes, and reading the folder back gives them", (format) =>
    withSession(0, async (session) => {
      const d = tempFolder("sluice-binary-files-");
      const stream = session.memoryStream(Message);
      const q = stream.toDF().writeStream.format(format).option("path", d.path("out")).option("checkpointLocation", d.path("cp")).start();
      stream.addData(...messages);
      await q.processAllAvailable();
      await q.stop();
      if (format === "json") {
        // As Spark's JSON writer: bytes as base64 text, so they are read back with unbase64().
        const [part] = readdirSync(d.path("out")).filter((n) => n.endsWith(".json"));
        expect(readFileSync(d.path("out", part!), "utf8")).toBe('{"id":1,"payload":"SGVs"}\n{"id":2,"payload":"//4AgA=="}\n{"id":3}\n{"id":4,"payload":"SGVs"}\n');
        const text = z.object({ id: z.int32(), payload: z.string().nullable() });
        const read = await session.read.schema(text).json(d.path("out")).select("id", unbase64(col("payload")).alias("payload")).orderBy("id").collect();
        expect(read).toEqual(messages);
      } else {
        const reader = session.read.schema(Message);
        const read = await (format === "parquet" ? reader.parquet(d.path("out")) : reader.format("arrow").load(d.path("out"))).orderBy("id").collect();
        expect(read).toEqual(messages);
      }
    }),
  );
});

describe("binary columns refused where Sluice cannot keep them", () => {
  it("min, max, first and last of binary, and joins on binary keys, say what to use instead", () =>
    withSession(0, async (session) => {
      const df = session.createDataFrame(messages, Message);
      expect(() => df.groupBy("id").agg(max(col("payload")))).toThrow(AnalysisError);
      expect(() => df.groupBy("id").agg(first(col("payload")))).toThrow(
        'first(payload) is not supported on binary: aggregation state keeps numbers and strings only; aggregate hex(payload) or payload.cast("string") instead',
      );
      expect(() => df.join(df.select("payload"), "payload")).toThrow(
        'join key "payload" is binary, which a join cannot hash yet; join on its hex text instead: withColumn("payload", hex(col("payload"))) on both sides keeps every byte',
      );
    }));
});
