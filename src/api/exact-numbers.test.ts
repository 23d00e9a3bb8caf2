import * as arrow from "apache-arrow";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { NumericRangeError } from "../errors/errors.js";
import { WORKER_COUNTS } from "../testing/fixtures.js";
import { tempDirs } from "../testing/temp-dirs.js";
import { Session } from "./session.js";
import type { DataFrame } from "./data-frame.js";
import { col, count, lit, struct, to_json, window } from "./functions.js";

/**
 * int64 beyond ±(2^53 - 1) and timestamps finer than milliseconds give the same answers whichever
 * way the data enters Sluice: an Arrow table (Int64, Timestamp(us)), rows, a JSON-lines file,
 * a memory stream. See batch/numeric-columns.ts for the rules.
 */

const TWO_53 = 2n ** 53n;
const IDS = [TWO_53 + 1n, TWO_53, -(TWO_53 + 1n), TWO_53 + 1n, 7n];
/** -1 us is 1969-12-31T23:59:59.999999: -1 ms, floored as Spark's microsToMillis, not 0. */
const MICROS = [-1n, 1_700_000_000_123_456n, -1_001n, 999n, 1_700_000_000_999_999n];
const MILLIS = [-1, 1_700_000_000_123, -2, 0, 1_700_000_000_999];
const V = [1, 2, 3, 4, 5];

const Row = z.object({ id: z.int(), t: z.date(), v: z.int32() });

function arrowTable(): arrow.Table {
  const id = arrow.makeData({ type: new arrow.Int64(), length: IDS.length, data: BigInt64Array.from(IDS) });
  const t = arrow.makeData({ type: new arrow.TimestampMicrosecond("UTC"), length: MICROS.length, data: BigInt64Array.from(MICROS) });
  const v = arrow.makeData({ type: new arrow.Int32(), length: V.length, data: Int32Array.from(V) });
  return new arrow.Table({ id: new arrow.Vector([id]), t: new arrow.Vector([t]), v: new arrow.Vector([v]) });
}

/** Rows as code hands them in: int64 beyond 2^53 as bigint (a number could not hold it). */
function rows(): Record<string, unknown>[] {
  return IDS.map((id, i) => ({ id, t: new Date(MILLIS[i]!), v: V[i] }));
}

/** ISO-8601 text with all six fraction digits of a microsecond time. */
function isoMicros(us: bigint): string {
  const ms = us >= 0n ? us / 1000n : -((-us + 999n) / 1000n);
  const text = new Date(Number(ms)).toISOString();
  return `${text.slice(0, -1)}${String(us - ms * 1000n).padStart(3, "0")}Z`;
}

const tempFolder = tempDirs();

function jsonFile(): string {
  const d = tempFolder();
  return d.write(
    "rows.jsonl",
    IDS.map((id, i) => `{"id":${id},"t":"${isoMicros(MICROS[i]!)}","v":${V[i]}}`),
  );
}

type Input = (session: Session) => Promise<DataFrame<any>>;

/** Every way the same five rows enter Sluice as a static DataFrame. */
const INPUTS: [string, Input][] = [
  ["session.fromArrow (Int64, Timestamp(us, UTC))", async (s) => s.fromArrow(arrowTable())],
  ["session.createDataFrame (bigint, Date)", async (s) => s.createDataFrame(rows() as never, Row)],
  ["a JSON-lines file (digits, ISO-8601 with microseconds)", async (s) => s.read.schema(Row).json(jsonFile())],
  [
    "a memory stream into a memory sink",
    async (s) => {
      const stream = s.memoryStream(Row);
      const name = `exact_${Math.random().toString(36).slice(2)}`;
      const q = stream.toDF().writeStream.format("memory").queryName(name).outputMode("append").start();
      stream.addData(...(rows() as never[]));
      await q.processAllAvailable();
      await q.stop();
      return s.table(name);
    },
  ],
];

/** Rows of an Arrow result as plain objects (Int64 as bigint, timestamps as epoch ms). */
async function arrowRows(df: DataFrame<any>): Promise<Record<string, unknown>[]> {
  return (await df.toArrow()).toArray().map((r) => r.toJSON());
}

describe.each(WORKER_COUNTS)("int64 beyond 2^53 and microsecond times agree across inputs, %i workers", (workers) => {
  // One session (and worker pool) for all inputs: starting worker threads is the slow part.
  let session: Session;
  beforeAll(() => {
    session = new Session({ workers });
  });
  afterAll(() => session.stop());

  describe.each(INPUTS)("from %s", (_, input) => {
    it("keeps int64 values exact and times floored to the millisecond through toArrow()", async () => {
      const df = await input(session);
      expect(await arrowRows(df.select("id", "t", "v"))).toEqual(IDS.map((id, i) => ({ id, t: MILLIS[i], v: V[i] })));
      expect((await df.toArrow()).schema.fields.map((f) => `${f.name}:${f.type}`)).toEqual(["id:Int64", "t:Timestamp<MILLISECOND>", "v:Int32"]);
    });

    it("groups, orders, deduplicates and joins on the exact int64 (2^53 and 2^53 + 1 are two keys)", async () => {
      const df = await input(session);
      expect(await arrowRows(df.groupBy("id").agg(count().alias("n")).orderBy("id"))).toEqual([
        { id: -(TWO_53 + 1n), n: 1n },
        { id: 7n, n: 1n },
        { id: TWO_53, n: 1n },
        { id: TWO_53 + 1n, n: 2n },
      ]);
      expect(await arrowRows(df.orderBy(col("id").desc(), "v").select("v"))).toEqual([{ v: 1 }, { v: 4 }, { v: 2 }, { v: 5 }, { v: 3 }]);
      expect(await df.dropDuplicates("id").count()).toBe(4);
      const names = session.fromArrow(
        new arrow.Table({ id: arrow.vectorFromArray([TWO_53 + 1n], new arrow.Int64()), name: arrow.vectorFromArray(["one past 2^53"]) }),
      );
      expect(await df.join(names, "id").select("v", "name").orderBy("v").collect()).toEqual([
        { v: 1, name: "one past 2^53" },
        { v: 4, name: "one past 2^53" },
      ]);
    });

    it("prints int64 exactly as text and JSON, and windows and filters times by the floored millisecond", async () => {
      const df = await input(session);
      expect(await df.select(col("id").cast("string").alias("s")).collect()).toEqual(IDS.map((id) => ({ s: String(id) })));
      expect(await df.select(to_json(struct(col("id"), col("t"))).alias("j")).collect()).toEqual(
        IDS.map((id, i) => ({ j: `{"id":${id},"t":"${new Date(MILLIS[i]!).toISOString()}"}` })),
      );
      expect(await df.filter(col("t").lt(lit(new Date(0)))).select("v").orderBy("v").collect()).toEqual([{ v: 1 }, { v: 3 }]);
      expect(await arrowRows(df.groupBy(window(col("t"), "1 second")).agg(count().alias("n")).orderBy("window").select(col("window.start").alias("start"), "n"))).toEqual([
        { start: -1000, n: 2n },
        { start: 0, n: 1n },
        { start: 1_700_000_000_000, n: 2n },
      ]);
    });

    it("raises NumericRangeError, naming the column, where the int64 would have to become a double", async () => {
      const df = await input(session);
      await expect(df.select("id").collect()).rejects.toThrow(NumericRangeError);
      await expect(df.select("id").collect()).rejects.toThrow('int64 column "id" holds 9007199254740993, beyond ±(2^53 - 1)');
      // Computed in a task (in a worker thread with workers > 0): the class survives the thread boundary.
      await expect(df.select(col("id").plus(1).alias("next")).collect()).rejects.toThrow(NumericRangeError);
      await expect(df.select(col("id").plus(1).alias("next")).collect()).rejects.toThrow('int64 column "id" holds 9007199254740993');
      // show() prints every digit, as Spark shows its longs.
      const write = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
      try {
        await df.filter(col("v").leq(2)).select("id", "v").show();
        expect(String(write.mock.calls[0]![0])).toBe(
          ["+----------------+---+", "|              id|  v|", "+----------------+---+", "|9007199254740993|  1|", "|9007199254740992|  2|", "+----------------+---+", ""].join("\n"),
        );
      } finally {
        write.mockRestore();
      }
      // Within the range everything computes as before.
      expect(await df.filter(col("v").equalTo(5)).select(col("id").cast("string").alias("s"), col("v").plus(1).alias("w")).collect()).toEqual([{ s: "7", w: 6 }]);
    });
  });
});
