import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { AnalysisError } from "../errors/errors.js";
import { fieldsFromZod } from "../schema/zod-schema.js";
import { WORKER_COUNTS, withSession } from "../testing/fixtures.js";
import { addData, checkLastBatch, testStream } from "../testing/stream-test.js";
import { tempDirs } from "../testing/temp-dirs.js";
import { col, count, first, struct, to_json } from "./functions.js";

/** Records with Kafka headers, declared as Spark's array<struct<key: string, value: binary>>. */
const Record = z.object({
  id: z.int32(),
  headers: z.array(z.object({ key: z.string(), value: z.instanceof(Uint8Array).nullable() })).nullable(),
});
const v = (...b: number[]) => Uint8Array.from(b);
const records = [
  { id: 1, headers: [{ key: "trace", value: v(0x74, 0x31) }, { key: "flag", value: null }, { key: "trace", value: v(0xff) }] },
  { id: 2, headers: [] },
  { id: 3, headers: null },
  { id: 4, headers: [{ key: "quote\"", value: v() }] },
];

const tempFolder = tempDirs();

describe("a zod schema declares headers", () => {
  it("as an array of { key: string, value: binary }, and nothing else as an array", () => {
    expect(fieldsFromZod(Record)).toEqual([
      { name: "id", type: "int32", nullable: false },
      { name: "headers", type: "headers", nullable: true },
    ]);
    expect(() => fieldsFromZod(z.object({ tags: z.array(z.string()) }))).toThrow(
      'schema field "tags": the only array Sluice has is Kafka headers, z.array(z.object({ key: z.string(), value: z.instanceof(Uint8Array).nullable() }))',
    );
  });
});

describe.each(WORKER_COUNTS)("headers columns with %i workers", (workers) => {
  it("pass through select, filter, union, orderBy and dropDuplicates in record order, duplicates kept", () =>
    withSession(workers, async (session) => {
      const df = session.createDataFrame(records, Record);
      const out = await df
        .filter(col("headers").isNotNull())
        .union(df.filter(col("id").equalTo(3)))
        .dropDuplicates("id")
        .orderBy(col("id").desc())
        .select("headers", col("headers").isNull().alias("none"))
        .collect();
      expect(out).toEqual([
        { headers: records[3]!.headers, none: false },
        { headers: null, none: true },
        { headers: [], none: false },
        { headers: records[0]!.headers, none: false },
      ]);
    }));

  it("come along from the static side of a join, null where a left join finds no match", () =>
    withSession(workers, async (session) => {
      const ids = session.memoryStream(z.object({ id: z.int32() }));
      const joined = ids.toDF().join(session.createDataFrame(records, Record), "id", "left");
      await testStream(joined, "append").run(
        addData(ids, { id: 4 }, { id: 9 }, { id: 1 }),
        checkLastBatch({ id: 4, headers: records[3]!.headers }, { id: 9, headers: null }, { id: 1, headers: records[0]!.headers }),
      );
    }));

  it("become JSON text with to_json, as Spark writes array<struct<key, value: binary>>", () =>
    withSession(workers, async (session) => {
      const out = await session.createDataFrame(records, Record).select(to_json(col("headers")).alias("h"), to_json(struct("id", "headers")).alias("row")).collect();
      expect(out).toEqual([
        { h: '[{"key":"trace","value":"dDE="},{"key":"flag"},{"key":"trace","value":"/w=="}]', row: '{"id":1,"headers":[{"key":"trace","value":"dDE="},{"key":"flag"},{"key":"trace","value":"/w=="}]}' },
        { h: "[]", row: '{"id":2,"headers":[]}' },
        { h: null, row: '{"id":3}' },
        { h: '[{"key":"quote\\"","value":""}]', row: '{"id":4,"headers":[{"key":"quote\\"","value":""}]}' },
      ]);
    }));
});

describe("headers columns in output", () => {
  it("show() prints them as Spark prints an array of structs", () =>
    withSession(0, async (session) => {
      const write = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
      try {
        await session.createDataFrame(records, Record).show(3, false);
        expect(String(write.mock.calls[0]![0]).split("\n")).toEqual([
          "+---+-----------------------------------------------+",
          "|id |headers                                        |",
          "+---+-----------------------------------------------+",
          "|1  |[{trace, [74 31]}, {flag, NULL}, {trace, [FF]}]|",
          "|2  |[]                                             |",
          "|3  |NULL                                           |",
          "+---+-----------------------------------------------+",
          "only showing top 3 rows",
          "",
        ]);
      } finally {
        write.mockRestore();
      }
    }));

  it.each(["json", "parquet", "arrow"] as const)("the %s file sink writes them, and parquet and arrow read them back", (format) =>
    withSession(0, async (session) => {
      const d = tempFolder("sluice-headers-files-");
      const stream = session.memoryStream(Record);
      const q = stream.toDF().writeStream.format(format).option("path", d.path("out")).option("checkpointLocation", d.path("cp")).start();
      stream.addData(...records);
      await q.processAllAvailable();
      await q.stop();
      if (format === "json") {
        const [part] = readdirSync(d.path("out")).filter((n) => n.endsWith(".json"));
        expect(readFileSync(d.path("out", part!), "utf8").split("\n")).toEqual([
          '{"id":1,"headers":[{"key":"trace","value":"dDE="},{"key":"flag"},{"key":"trace","value":"/w=="}]}',
          '{"id":2,"headers":[]}',
          '{"id":3}',
          '{"id":4,"headers":[{"key":"quote\\"","value":""}]}',
          "",
        ]);
      } else {
        const reader = session.read.schema(Record);
        const read = await (format === "parquet" ? reader.parquet(d.path("out")) : reader.format("arrow").load(d.path("out"))).orderBy("id").collect();
        expect(read).toEqual(records);
      }
    }),
  );
});

describe("headers columns refused as keys and operands", () => {
  it("name the headers column and what to use", () =>
    withSession(0, async (session) => {
      const df = session.createDataFrame(records, Record);
      expect(() => df.groupBy("headers").count()).toThrow(AnalysisError);
      expect(() => df.groupBy("headers").count()).toThrow('groupBy cannot use the headers column "headers" as a key; key by its JSON text, to_json(col("headers")), instead');
      expect(() => df.orderBy("headers")).toThrow('orderBy cannot use the headers column "headers" as a key');
      expect(() => df.dropDuplicates("headers")).toThrow('dropDuplicates cannot use the headers column "headers" as a key');
      expect(() => df.select(col("headers").cast("string"))).toThrow('cannot cast headers (headers) to string; to_json(headers) writes headers as JSON text');
      expect(() => df.groupBy("id").agg(first(col("headers")))).toThrow("first() needs a scalar column, but got headers");
      expect(() => df.groupBy("id").agg(count(col("headers")))).toThrow(
        'count(headers) is not supported on headers; count() counts rows, and count(when(col("headers").isNotNull(), 1)) the rows with headers',
      );
      expect(() => df.filter(col("headers").equalTo(col("headers")))).toThrow('comparison "=" needs scalar values, but got headers');
    }));
});
