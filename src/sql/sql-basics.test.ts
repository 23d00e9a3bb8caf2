import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { DataFrame } from "../api/data-frame.js";
import { col, upper } from "../api/functions.js";
import { AnalysisError, ParseException } from "../errors/errors.js";
import { at, sessionsPerFile } from "../testing/fixtures.js";

const Sale = z.object({ shop: z.string(), item: z.string().nullable(), amount: z.number(), qty: z.int32(), time: z.date() });
const rows = [
  { shop: "North", item: "Tea", amount: 2.5, qty: 2, time: at("09:15", 30) },
  { shop: "South", item: null, amount: 10, qty: 1, time: at("10:45") },
  { shop: "North", item: "Cake", amount: 4, qty: 3, time: at("11:05") },
  { shop: "East", item: "Pie", amount: 6, qty: 1, time: at("11:30") },
];

const sessionFor = sessionsPerFile("sql-basics");

function setUp() {
  const session = sessionFor(0);
  const sales = session.createDataFrame(rows, Sale);
  sales.createOrReplaceTempView("sales");
  return { session, sales };
}

/** The SQL query gives exactly the rows (values, names, order) the DataFrame-API query gives. */
async function sameRows(sql: DataFrame<any>, api: DataFrame<any>): Promise<unknown[]> {
  const [fromSql, fromApi] = await Promise.all([sql.collect(), api.collect()]);
  expect(sql.schema).toEqual(api.schema);
  expect(fromSql).toEqual(fromApi);
  return fromSql;
}

describe("session.sql over temporary views", () => {
  it("SELECT with expressions and aliases, WHERE, ORDER BY and LIMIT gives the DataFrame API's rows", async () => {
    const { session, sales } = setUp();
    const out = await sameRows(
      session.sql("SELECT shop, amount * qty AS total, upper(item) FROM sales WHERE amount > 3 ORDER BY total DESC LIMIT 2"),
      sales
        .filter(col("amount").gt(3))
        .select("shop", col("amount").multiply(col("qty")).alias("total"), upper(col("item")))
        .orderBy(col("total").desc())
        .limit(2),
    );
    expect(out).toEqual([
      { shop: "North", total: 12, "upper(item)": "CAKE" },
      { shop: "South", total: 10, "upper(item)": null },
    ]);
  });

  it("reads names case-insensitively, with or without AS, backquoted, qualified by the view and with SELECT *", async () => {
    const { session, sales } = setUp();
    await sameRows(session.sql("SELECT Shop s, `qty` AS q, SALES.amount FROM Sales"), sales.select(col("shop").alias("s"), col("qty").alias("q"), "amount"));
    await sameRows(session.sql("SELECT * FROM sales"), sales);
    await sameRows(session.sql("SELECT x.* FROM sales AS x WHERE x.qty = 1"), sales.filter(col("qty").equalTo(1)));
  });

  it("orders by columns the select list leaves out, by ordinal, and with NULLS FIRST / LAST", async () => {
    const { session, sales } = setUp();
    await sameRows(session.sql("SELECT item FROM sales ORDER BY amount"), sales.orderBy("amount").select("item"));
    await sameRows(session.sql("SELECT item, amount FROM sales ORDER BY 2 DESC"), sales.select("item", "amount").orderBy(col("amount").desc()));
    expect((await session.sql("SELECT item FROM sales ORDER BY item").collect()).map((r) => r.item)).toEqual([null, "Cake", "Pie", "Tea"]);
    expect((await session.sql("SELECT item FROM sales ORDER BY item NULLS LAST").collect()).map((r) => r.item)).toEqual(["Cake", "Pie", "Tea", null]);
    expect((await session.sql("SELECT item FROM sales ORDER BY item DESC").collect()).map((r) => r.item)).toEqual(["Tea", "Pie", "Cake", null]);
    expect((await session.sql("SELECT item FROM sales ORDER BY item DESC NULLS FIRST").collect()).map((r) => r.item)).toEqual([null, "Tea", "Pie", "Cake"]);
  });

  it("reads a memory sink's table, and session.table reads a view", async () => {
    const { session } = setUp();
    const words = session.memoryStream(z.object({ word: z.string() }));
    const query = words.toDF().writeStream.format("memory").queryName("seen_words").start();
    words.addData({ word: "a" }, { word: "b" }, { word: "a" });
    await query.processAllAvailable();
    await query.stop();
    expect(await session.sql("SELECT word FROM seen_words WHERE word = 'a'").collect()).toEqual([{ word: "a" }, { word: "a" }]);
    expect(await session.table("SALES").count()).toBe(4);
  });

  it("createTempView refuses a taken name; createOrReplaceTempView replaces; catalog.dropTempView drops", async () => {
    const { session, sales } = setUp();
    expect(() => sales.createTempView("sales")).toThrow(
      "[TEMP_TABLE_OR_VIEW_ALREADY_EXISTS] Cannot create the temporary view `sales` because it already exists. Choose a different name, drop or replace the existing view (createOrReplaceTempView). SQLSTATE: 42P07",
    );
    sales.filter(col("qty").gt(1)).createTempView("big_orders");
    expect(await session.sql("SELECT shop FROM big_orders").count()).toBe(2);
    sales.createOrReplaceTempView("big_orders");
    expect(await session.sql("SELECT shop FROM big_orders").count()).toBe(4);
    expect(session.catalog.tableExists("BIG_ORDERS")).toBe(true);
    expect(session.catalog.dropTempView("big_orders")).toBe(true);
    expect(session.catalog.dropTempView("big_orders")).toBe(false);
    expect(() => session.sql("SELECT * FROM big_orders")).toThrow("[TABLE_OR_VIEW_NOT_FOUND]");
  });
});

function errorOf(f: () => unknown): AnalysisError {
  try {
    f();
  } catch (e) {
    if (e instanceof AnalysisError) return e;
    throw e;
  }
  throw new Error("no error");
}

describe("session.sql errors, as Spark's", () => {
  it("a syntax error is a ParseException with line, position, caret and SQLSTATE 42601", () => {
    const { session } = setUp();
    const e = errorOf(() => session.sql("SELECT FROM sales"));
    expect(e).toBeInstanceOf(ParseException);
    expect(e.message).toBe("[PARSE_SYNTAX_ERROR] Syntax error at or near 'FROM'. SQLSTATE: 42601 (line 1, pos 7)\n\n== SQL ==\nSELECT FROM sales\n-------^^^\n");
    expect([(e as ParseException).line, (e as ParseException).column, e.errorClass, e.sqlState]).toEqual([1, 7, "PARSE_SYNTAX_ERROR", "42601"]);
  });

  it("on a multi-line query, the caret line stands under the offending line, the rest below", () => {
    const { session } = setUp();
    const e = errorOf(() => session.sql("SELECT shop,\n       amount\n  FROM sales\n WHERE amount >\n ORDER BY shop"));
    expect([(e as ParseException).line, (e as ParseException).column]).toEqual([5, 1]);
    expect(e.message).toBe(
      "[PARSE_SYNTAX_ERROR] Syntax error at or near 'ORDER'. SQLSTATE: 42601 (line 5, pos 1)\n\n== SQL ==\nSELECT shop,\n       amount\n  FROM sales\n WHERE amount >\n ORDER BY shop\n-^^^\n",
    );
    expect(errorOf(() => session.sql("SELECT shop FROM sales LIMIT")).message).toContain("Syntax error at or near end of input. SQLSTATE: 42601 (line 1, pos 28)");
    expect(errorOf(() => session.sql("SELECT shop FROM sales extra words")).message).toContain("Syntax error at or near 'words': extra input 'words'.");
  });

  it("an unknown view is TABLE_OR_VIEW_NOT_FOUND (42P01), at the name", () => {
    const { session } = setUp();
    const e = errorOf(() => session.sql("SELECT shop\nFROM nope"));
    expect([e.errorClass, e.sqlState]).toEqual(["TABLE_OR_VIEW_NOT_FOUND", "42P01"]);
    expect(e.message).toBe(
      '[TABLE_OR_VIEW_NOT_FOUND] The table or view `nope` cannot be found. Verify the spelling and correctness of the schema and catalog. A view is made with df.createOrReplaceTempView("nope"), a memory sink\'s table with writeStream.format("memory").queryName("nope"). SQLSTATE: 42P01; line 2 pos 5\n\n== SQL ==\nSELECT shop\nFROM nope\n-----^^^\n',
    );
  });

  it("an unknown column is UNRESOLVED_COLUMN.WITH_SUGGESTION (42703), closest names first", () => {
    const { session } = setUp();
    const e = errorOf(() => session.sql("SELECT shop, amout FROM sales"));
    expect([e.errorClass, e.sqlState]).toEqual(["UNRESOLVED_COLUMN.WITH_SUGGESTION", "42703"]);
    expect(e.message).toBe(
      "[UNRESOLVED_COLUMN.WITH_SUGGESTION] A column, variable, or function parameter with name `amout` cannot be resolved. Did you mean one of the following? [`sales`.`amount`, `sales`.`shop`, `sales`.`item`, `sales`.`qty`, `sales`.`time`]. SQLSTATE: 42703; line 1 pos 13\n\n== SQL ==\nSELECT shop, amout FROM sales\n-------------^^^\n",
    );
  });
});
