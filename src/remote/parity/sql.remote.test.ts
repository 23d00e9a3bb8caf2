// SQL over temporary views, run embedded and on Spark: a windowed aggregation over a streaming view (parity.ts)
// and static queries over views of in-memory rows, whose ordered rows must be the same on both backends.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { col, timestamp_seconds } from "../../api/functions.js";
import { Session } from "../../api/session.js";
import { remoteSession } from "../../testing/spark-connect.js";
import { events, runBoth } from "../../testing/remote-parity.js";

const Event = z.object({ key: z.string(), time: z.int() });

/** The folder's events as the view `events`, with their event time and a 10 s watermark. */
function eventsView(session: Session, dir: string): void {
  session.readStream
    .schema(Event)
    .option("maxFilesPerTrigger", 1)
    .json(dir)
    .withColumn("eventTime", timestamp_seconds(col("time")))
    .withWatermark("eventTime", "10 seconds")
    .createOrReplaceTempView("events");
}

const Sale = z.object({ shop: z.string(), item: z.string(), qty: z.int(), price: z.number() });
const SALES = [
  { shop: "north", item: "tea", qty: 3, price: 2.5 },
  { shop: "south", item: "cake", qty: 1, price: 4 },
  { shop: "north", item: "pie", qty: 2, price: 3 },
  { shop: "east", item: "tea", qty: 5, price: 2.5 },
  { shop: "south", item: "tea", qty: 4, price: 2.5 },
];
const Shop = z.object({ shop: z.string(), city: z.string() });
const SHOPS = [
  { shop: "north", city: "Oslo" },
  { shop: "south", city: "Rome" },
];

/** The rows of `sql` over the views `sales` and `shops`, in a session. */
async function staticRows(session: Session, sql: string): Promise<Record<string, unknown>[]> {
  session.createDataFrame(SALES, Sale).createOrReplaceTempView("sales");
  session.createDataFrame(SHOPS, Shop).createOrReplaceTempView("shops");
  return session.sql(sql).collect();
}

describe("SQL, embedded and on Spark", () => {
  it("a streaming view: GROUP BY window(...) with a watermark, update mode", () =>
    runBoth({
      name: "sql_windows",
      outputMode: "update",
      query: (session, [dir]) => {
        eventsView(session, dir!);
        return session.sql("SELECT key, unix_seconds(window.start) AS start, count(*) AS n FROM events GROUP BY window(eventTime, '10 seconds'), key HAVING count(*) > 1");
      },
      steps: [
        { add: events(["a", 1], ["a", 2], ["b", 3]), table: [{ key: "a", start: 0, n: 2 }] },
        // Watermark then 15 s: b at 4 s is late; b at 26 s and 27 s make a group of two.
        { add: events(["b", 4], ["a", 25]), table: [{ key: "a", start: 0, n: 2 }, { key: "b", start: 0, n: 2 }] },
        { add: events(["b", 26], ["b", 27], ["a", 3]), table: [{ key: "a", start: 0, n: 2 }, { key: "b", start: 0, n: 2 }, { key: "b", start: 20, n: 2 }] },
      ],
    }), 60_000);

  it("a streaming view joined with a static one in SQL, filtered", () =>
    runBoth({
      name: "sql_stream_static",
      outputMode: "append",
      query: (session, [dir]) => {
        eventsView(session, dir!);
        session.createDataFrame(SHOPS, Shop).createOrReplaceTempView("shops");
        return session.sql("SELECT e.key, e.time, s.city FROM events e LEFT JOIN shops s ON e.key = s.shop WHERE e.time > 1");
      },
      steps: [
        { add: events(["north", 1], ["north", 2], ["west", 3]), table: [{ key: "north", time: 2, city: "Oslo" }, { key: "west", time: 3, city: null }] },
        { add: events(["south", 4]), table: [{ key: "north", time: 2, city: "Oslo" }, { key: "west", time: 3, city: null }, { key: "south", time: 4, city: "Rome" }] },
      ],
    }), 60_000);

  it("static queries: aggregation, HAVING, ORDER BY, a join, a subquery, a CTE, UNION", async () => {
    const queries: [string, Record<string, unknown>[]][] = [
      [
        "SELECT shop, sum(qty) AS units, sum(qty * price) AS revenue, count(*) AS n FROM sales GROUP BY shop HAVING count(*) > 1 ORDER BY shop",
        [
          { shop: "north", units: 5, revenue: 13.5, n: 2 },
          { shop: "south", units: 5, revenue: 14, n: 2 },
        ],
      ],
      [
        "SELECT s.item, s.qty, p.city FROM sales s JOIN shops p ON s.shop = p.shop AND s.qty > 1 ORDER BY s.qty DESC",
        [
          { item: "tea", qty: 4, city: "Rome" },
          { item: "tea", qty: 3, city: "Oslo" },
          { item: "pie", qty: 2, city: "Oslo" },
        ],
      ],
      [
        "WITH per_item AS (SELECT item, sum(qty) AS units FROM sales GROUP BY item) SELECT t.item, t.units FROM (SELECT * FROM per_item WHERE units > 1) t ORDER BY t.units DESC, t.item",
        [
          { item: "tea", units: 12 },
          { item: "pie", units: 2 },
        ],
      ],
      ["SELECT shop FROM sales UNION SELECT shop FROM shops ORDER BY shop DESC LIMIT 2", [{ shop: "south" }, { shop: "north" }]],
    ];
    const embeddedSession = new Session({ workers: 0 });
    const session = remoteSession();
    try {
      for (const [sql, expected] of queries) {
        const embedded = await staticRows(embeddedSession, sql);
        const remote = await staticRows(session, sql);
        expect(remote, `Spark's answer to ${sql}`).toEqual(embedded);
        expect(embedded, sql).toEqual(expected);
      }
    } finally {
      await Promise.all([embeddedSession.stop(), session.stop()]);
    }
  }, 60_000);
});
