import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { DataFrame } from "../api/data-frame.js";
import {
  avg,
  col,
  concat,
  count,
  date_trunc,
  explode,
  first,
  hour,
  interval,
  lit,
  lower,
  max,
  min,
  session_window,
  split,
  struct,
  substring,
  sum,
  to_json,
  when,
  window,
} from "../api/functions.js";
import { at, sessionsPerFile } from "../testing/fixtures.js";

/**
 * spark.sql-style: each construct SQL supports, as a SQL query and as the DataFrame-API query it
 * stands for, over the same views; both give the same columns and the same rows.
 */
const Sale = z.object({ shop: z.string(), item: z.string().nullable(), amount: z.number(), qty: z.int32(), time: z.date() });
const Shop = z.object({ shop: z.string(), city: z.string() });
const sales = [
  { shop: "North", item: "Tea", amount: 2.5, qty: 2, time: at("09:15", 30) },
  { shop: "South", item: null, amount: 10, qty: 1, time: at("10:45") },
  { shop: "North", item: "Cake", amount: 4, qty: 3, time: at("11:05") },
  { shop: "East", item: "Pie", amount: 6, qty: 1, time: at("11:30") },
  { shop: "North", item: "Tea", amount: 2.5, qty: 1, time: at("11:40") },
];
const shops = [
  { shop: "North", city: "Leeds" },
  { shop: "South", city: "Bath" },
  { shop: "West", city: "Truro" },
];

const sessionFor = sessionsPerFile("sql-constructs");

function views() {
  const session = sessionFor(0);
  const s = session.createDataFrame(sales, Sale);
  const p = session.createDataFrame(shops, Shop);
  s.createOrReplaceTempView("sales");
  p.createOrReplaceTempView("shops");
  return { session, s, p };
}

const sorted = (rows: readonly object[]) => rows.map((r) => JSON.stringify(r)).sort();

/** Same columns and the same rows, in any order (Spark's checkAnswer). */
async function sameRows(sql: DataFrame<any>, api: DataFrame<any>): Promise<object[]> {
  expect(sql.schema).toEqual(api.schema);
  const [fromSql, fromApi] = await Promise.all([sql.collect(), api.collect()]);
  expect(sorted(fromSql)).toEqual(sorted(fromApi));
  return fromSql;
}

/** Same columns and the same rows in the same order (queries with ORDER BY). */
async function sameRowsInOrder(sql: DataFrame<any>, api: DataFrame<any>): Promise<object[]> {
  expect(sql.schema).toEqual(api.schema);
  const [fromSql, fromApi] = await Promise.all([sql.collect(), api.collect()]);
  expect(fromSql).toEqual(fromApi);
  return fromSql;
}

describe("SQL constructs give the DataFrame API's rows", () => {
  it("builds the very plan the DataFrame API builds", () => {
    const { session, s } = views();
    expect(session.sql("SELECT shop, count(*) AS n, sum(amount) FROM sales WHERE qty > 1 GROUP BY shop").plan).toEqual(
      s.filter(col("qty").gt(1)).groupBy("shop").agg(count().alias("n"), sum(col("amount"))).plan,
    );
    expect(session.sql("SELECT item, amount * 2 AS twice FROM sales ORDER BY twice DESC LIMIT 3").plan).toEqual(
      s.select("item", col("amount").multiply(2).alias("twice")).orderBy(col("twice").desc()).limit(3).plan,
    );
  });

  it("GROUP BY with aggregates, HAVING and ORDER BY an aggregate's alias", async () => {
    const { session, s } = views();
    const out = await sameRowsInOrder(
      session.sql("SELECT shop, count(*) AS n, sum(amount) AS total, avg(qty), min(item), max(item), first(item) FROM sales GROUP BY shop HAVING count(*) > 1 OR sum(amount) > 9 ORDER BY total DESC"),
      s
        .groupBy("shop")
        .agg(count().alias("n"), sum(col("amount")).alias("total"), avg(col("qty")), min(col("item")), max(col("item")), first(col("item")))
        .filter(col("n").gt(1).or(col("total").gt(9)))
        .orderBy(col("total").desc()),
    );
    expect(out).toEqual([
      { shop: "South", n: 1, total: 10, "avg(qty)": 1, "min(item)": null, "max(item)": null, "first(item)": null },
      { shop: "North", n: 3, total: 9, "avg(qty)": 2, "min(item)": "Cake", "max(item)": "Tea", "first(item)": "Tea" },
    ]);
  });

  it("aggregates without GROUP BY, and expressions over keys and aggregates", async () => {
    const { session, s } = views();
    await sameRows(session.sql("SELECT count(*), sum(qty) AS units FROM sales"), s.groupBy().agg(count(), sum(col("qty")).alias("units")));
    await sameRows(
      session.sql("SELECT lower(shop) AS s, sum(amount) / count(amount) AS mean FROM sales GROUP BY shop"),
      s
        .groupBy("shop")
        .agg(sum(col("amount")).alias("t"), count(col("amount")).alias("c"))
        .select(lower(col("shop")).alias("s"), col("t").divide(col("c")).alias("mean")),
    );
  });

  it("GROUP BY a select alias or an ordinal", async () => {
    const { session, s } = views();
    const api = s.groupBy(hour(col("time")).alias("h")).agg(count().alias("n"));
    await sameRows(session.sql("SELECT hour(time) AS h, count(*) AS n FROM sales GROUP BY h"), api);
    await sameRows(session.sql("SELECT hour(time) AS h, count(*) AS n FROM sales GROUP BY 1"), api);
  });

  it("GROUP BY window(...), sliding, with window.start and window.end in the select list", async () => {
    const { session, s } = views();
    await sameRows(
      session.sql("SELECT window, shop, count(*) AS n FROM sales GROUP BY window(time, '1 hour', '30 minutes'), shop"),
      s.groupBy(window(col("time"), "1 hour", "30 minutes"), "shop").agg(count().alias("n")),
    );
    const out = await sameRowsInOrder(
      session.sql("SELECT window.start, window.end, sum(qty) AS units FROM sales GROUP BY window(time, INTERVAL 1 HOUR) ORDER BY window.start"),
      s.groupBy(window(col("time"), "1 hour")).agg(sum(col("qty")).alias("units")).orderBy(col("window.start")).select(col("window.start"), col("window.end"), "units"),
    );
    expect(out).toEqual([
      { start: at("09:00"), end: at("10:00"), units: 2 },
      { start: at("10:00"), end: at("11:00"), units: 1 },
      { start: at("11:00"), end: at("12:00"), units: 5 },
    ]);
  });

  it("GROUP BY session_window(...)", async () => {
    const { session, s } = views();
    const out = await sameRows(
      session.sql("SELECT session_window.start, session_window.end, count(*) AS n FROM sales GROUP BY session_window(time, '30 minutes')"),
      s.groupBy(session_window(col("time"), "30 minutes")).agg(count().alias("n")).select(col("session_window.start"), col("session_window.end"), "n"),
    );
    expect(sorted(out)).toEqual(
      sorted([
        { start: at("09:15", 30), end: at("09:45", 30), n: 1 },
        { start: at("10:45"), end: at("12:10"), n: 4 },
      ]),
    );
  });

  it.each([
    ["JOIN", "inner"],
    ["INNER JOIN", "inner"],
    ["LEFT JOIN", "left"],
    ["LEFT OUTER JOIN", "left"],
    ["RIGHT OUTER JOIN", "right"],
    ["FULL OUTER JOIN", "full"],
    ["FULL JOIN", "full"],
  ] as const)("%s ... ON with qualified names", async (join, how) => {
    const { session, s, p } = views();
    await sameRows(
      session.sql(`SELECT s.item, s.amount, p.city FROM sales s ${join} shops AS p ON s.shop = p.shop AND s.amount > 2.5`),
      s.join(p, s.col("shop").equalTo(p.col("shop")).and(s.col("amount").gt(2.5)), how).select("item", "amount", "city"),
    );
  });

  it.each([
    ["LEFT SEMI JOIN", "left_semi"],
    ["SEMI JOIN", "left_semi"],
    ["LEFT ANTI JOIN", "left_anti"],
    ["ANTI JOIN", "left_anti"],
  ] as const)("%s keeps the left columns", async (join, how) => {
    const { session, s, p } = views();
    await sameRows(session.sql(`SELECT * FROM shops p ${join} sales s ON p.shop = s.shop`), p.join(s, p.col("shop").equalTo(s.col("shop")), how));
  });

  it("SELECT * of a join names a right column the left has too <name>_right, as the DataFrame API", async () => {
    const { session, s, p } = views();
    const joined = session.sql("SELECT * FROM sales JOIN shops ON sales.shop = shops.shop");
    expect(joined.columns).toEqual(["shop", "item", "amount", "qty", "time", "shop_right", "city"]);
    await sameRows(joined, s.join(p, s.col("shop").equalTo(p.col("shop"))));
    // A self-join tells its sides apart by their aliases.
    await sameRows(
      session.sql("SELECT a.item, b.qty FROM sales a JOIN sales b ON a.item = b.item AND a.qty > b.qty"),
      (() => {
        const [a, b] = [s.select(...s.columns), s.select(...s.columns)];
        return a.join(b, a.col("item").equalTo(b.col("item")).and(a.col("qty").gt(b.col("qty")))).select(col("item"), col("qty_right").alias("qty"));
      })(),
    );
  });

  it("subqueries in FROM, with and without an alias, joined and nested", async () => {
    const { session, s, p } = views();
    await sameRows(
      session.sql("SELECT big.shop, big.total FROM (SELECT shop, sum(amount) AS total FROM sales GROUP BY shop) AS big WHERE big.total > 5"),
      s.groupBy("shop").agg(sum(col("amount")).alias("total")).filter(col("total").gt(5)),
    );
    await sameRows(
      session.sql("SELECT t.city, n FROM (SELECT shop, count(*) AS n FROM (SELECT * FROM sales WHERE qty = 1) GROUP BY shop) c JOIN shops t ON c.shop = t.shop"),
      (() => {
        const c = s.filter(col("qty").equalTo(1)).groupBy("shop").agg(count().alias("n"));
        return c.join(p, c.col("shop").equalTo(p.col("shop"))).select("city", "n");
      })(),
    );
  });

  it("WITH tables, each seeing the ones before it and hiding a view of the same name", async () => {
    const { session, s } = views();
    const big = s.filter(col("amount").gt(3));
    await sameRows(
      session.sql("WITH sales AS (SELECT * FROM sales WHERE amount > 3), per_shop AS (SELECT shop, count(*) AS n FROM sales GROUP BY shop) SELECT shop, n FROM per_shop WHERE n >= 1"),
      big.groupBy("shop").agg(count().alias("n")).filter(col("n").geq(1)),
    );
  });

  it("SELECT without FROM reads one row", async () => {
    const { session } = views();
    expect(await session.sql("SELECT 1 AS one, 'a' || 'b' AS ab, 1 + 2, CAST('5' AS INT) AS five").collect()).toEqual([{ one: 1, ab: "ab", "(1 + 2)": 3, five: 5 }]);
    expect(() => session.sql("SELECT shop")).toThrow("[UNRESOLVED_COLUMN.WITHOUT_SUGGESTION] A column, variable, or function parameter with name `shop` cannot be resolved. SQLSTATE: 42703; line 1 pos 7");
  });

  it("UNION ALL keeps duplicates, UNION drops them, ORDER BY and LIMIT apply to the whole", async () => {
    const { session, s, p } = views();
    await sameRows(session.sql("SELECT shop FROM sales UNION ALL SELECT shop FROM shops"), s.select("shop").union(p.select("shop")));
    await sameRowsInOrder(
      session.sql("SELECT shop FROM sales UNION SELECT shop FROM shops ORDER BY shop DESC LIMIT 3"),
      s.select("shop").union(p.select("shop")).dropDuplicates().orderBy(col("shop").desc()).limit(3),
    );
  });

  it("SELECT DISTINCT", async () => {
    const { session, s } = views();
    await sameRowsInOrder(session.sql("SELECT DISTINCT shop, item FROM sales ORDER BY shop, item"), s.select("shop", "item").dropDuplicates().orderBy("shop", "item"));
  });

  it("|| concatenates as concat()", async () => {
    const { session, s } = views();
    await sameRows(session.sql("SELECT shop || '/' || item AS tag FROM sales"), s.select(concat(concat(col("shop"), lit("/")), col("item")).alias("tag")));
  });

  it("CAST with Spark's type names, CASE in both forms, IN, BETWEEN, IS NULL", async () => {
    const { session, s } = views();
    await sameRows(
      session.sql(
        "SELECT CAST(amount AS INT) AS a, CAST(qty AS STRING) q, CASE WHEN qty > 2 THEN 'many' WHEN qty > 1 THEN 'some' ELSE 'one' END AS size, " +
          "CASE shop WHEN 'North' THEN 1 ELSE 0 END AS north FROM sales WHERE shop IN ('North', 'East') AND amount BETWEEN 2 AND 5 AND item IS NOT NULL",
      ),
      s
        .filter(col("shop").isin("North", "East").and(col("amount").geq(2).and(col("amount").leq(5))).and(col("item").isNotNull()))
        .select(
          col("amount").cast("int32").alias("a"),
          col("qty").cast("string").alias("q"),
          when(col("qty").gt(2), "many").when(col("qty").gt(1), "some").otherwise("one").alias("size"),
          when(col("shop").equalTo("North"), 1).otherwise(0).alias("north"),
        ),
    );
  });

  it("intervals in both of Spark's forms, added to and subtracted from timestamps", async () => {
    const { session, s } = views();
    const out = await sameRows(
      session.sql("SELECT time + INTERVAL '10' MINUTE AS later, time - INTERVAL 1 HOUR 30 MINUTES AS earlier FROM sales WHERE time > INTERVAL '1 hour' + time - INTERVAL 2 HOURS"),
      s.select(col("time").plus(interval("10 minutes")).alias("later"), col("time").minus(interval("1 hour 30 minutes")).alias("earlier")),
    );
    expect(out[0]).toEqual({ later: at("09:25", 30), earlier: at("07:45", 30) });
  });

  it("the DataFrame API's functions: strings, times, JSON, explode(split(...))", async () => {
    const { session, s } = views();
    await sameRows(
      session.sql("SELECT concat(lower(shop), '-', substr(item, 1, 2)) AS tag, date_trunc('hour', time) AS h, hour(time), to_json(struct(shop, qty)) AS js FROM sales"),
      s.select(
        concat(lower(col("shop")), lit("-"), substring(col("item"), 1, 2)).alias("tag"),
        date_trunc("hour", col("time")).alias("h"),
        hour(col("time")),
        to_json(struct(col("shop"), col("qty"))).alias("js"),
      ),
    );
    await sameRows(session.sql("SELECT shop, explode(split(item, 'e')) AS part FROM sales"), s.select("shop", explode(split(col("item"), "e")).alias("part")));
  });
});
