import { writeFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { OptionError } from "../../errors/errors.js";
import { at, WORKER_COUNTS, withSession } from "../../testing/fixtures.js";
import { tempDirs } from "../../testing/temp-dirs.js";

const Order = z.object({ id: z.int(), item: z.string(), price: z.number().nullable(), time: z.date() });
const order = (id: number, item: string, price: number | null, time: Date) => ({ id, item, price, time });

const folder = tempDirs("sluice-columnar-source-");

describe.each(WORKER_COUNTS)("Parquet and Arrow IPC sources with %i workers", (workers) => {
  it.each(["parquet", "arrow"] as const)("read.format(%j) of a file sink's folder reads every committed row once, and only the columns asked for", (format) =>
    withSession(workers, async (session) => {
      const d = folder();
      const orders = session.memoryStream(Order);
      const q = orders.toDF().writeStream.format(format).option("path", d.path("out")).option("checkpointLocation", d.path("cp")).start();
      orders.addData(order(1, "tea", 2.5, at("10:00")), order(2, "cake", null, at("10:01")));
      await q.processAllAvailable();
      orders.addData(order(3, "jam", 4, at("10:02")));
      await q.processAllAvailable();
      await q.stop();
      // A crashed batch's leftover file is in the folder but not in the manifest: never read.
      writeFileSync(d.path("out", `part-00009-00000.${format === "parquet" ? "parquet" : "arrow"}`), "not data");
      const read = session.read.schema(Order).format(format).load(d.path("out"));
      expect(await read.orderBy("id").collect()).toEqual([order(1, "tea", 2.5, at("10:00")), order(2, "cake", null, at("10:01")), order(3, "jam", 4, at("10:02"))]);
      expect(await read.select("item").orderBy("item").collect()).toEqual([{ item: "cake" }, { item: "jam" }, { item: "tea" }]);
      if (format === "parquet") expect(await session.read.schema(Order).parquet(d.path("out")).count()).toBe(3);
    }),
  );

  it("readStream.parquet(dir) picks up new files as a file sink commits them, maxFilesPerTrigger at a time", () =>
    withSession(workers, async (session) => {
      const d = folder();
      const orders = session.memoryStream(Order);
      const writer = orders.toDF().writeStream.format("parquet").option("path", d.path("out")).option("checkpointLocation", d.path("cp-out")).start();
      const seen: number[][] = [];
      const reader = session.readStream
        .schema(Order)
        .option("maxFilesPerTrigger", 1)
        .parquet(d.path("out"))
        .writeStream.foreachBatch(async (df) => {
          seen.push((await df.collect()).map((r) => r.id));
        })
        .option("checkpointLocation", d.path("cp-in"))
        .start();
      orders.addData(order(1, "tea", 2.5, at("10:00")));
      await writer.processAllAvailable();
      orders.addData(order(2, "cake", null, at("10:01")), order(3, "jam", 4, at("10:02")));
      await writer.processAllAvailable();
      await reader.processAllAvailable();
      await writer.stop();
      await reader.stop();
      expect(seen).toEqual([[1], [2, 3]]);
      expect(reader.lastProgress!.sources[0]!.description).toBe(`FileStreamSource[${d.path("out")}]`);
    }));
});

describe("columnar source options", () => {
  it("need a schema, and take only the options that apply to typed files", () =>
    withSession(0, async (session) => {
      expect(() => session.read.parquet("/data")).toThrow(/^parquet\(\): declare the record schema first/);
      expect(() => session.read.schema(Order).option("mode", "DROPMALFORMED").format("arrow").load("/data")).toThrow(OptionError);
      expect(() => session.read.schema(Order).format("arrow").load()).toThrow("load(): the arrow source needs a path to a file or a folder of Arrow IPC files");
      expect(() => session.read.format("orc" as "json")).toThrow('read.format("orc") is not a source Sluice has; use "json", "parquet", "arrow" or "kafka"');
    }));
});
