import { describe, expectTypeOf, it } from "vitest";
import { z } from "zod";
import type { ColType, RowOf, WindowValue } from "../types/dtype.js";
import type { DataFrame } from "./data-frame.js";
import { avg, col, count, from_json, lit, lower, max, sum, window } from "./functions.js";
import type { Session } from "./session.js";

declare const session: Session;
const Click = z.object({
  user: z.string(),
  page: z.string().optional(),
  durationMs: z.int32(),
  price: z.number(),
  time: z.iso.datetime(),
});
const clicks = session.readStream.schema(Click).json("clicks/");

describe("column names and types flow from the schema", () => {
  it("maps zod types to column types", () => {
    expectTypeOf(clicks).toEqualTypeOf<
      DataFrame<{
        readonly user: ColType<"string", false>;
        readonly page: ColType<"string", true>;
        readonly durationMs: ColType<"int32", false>;
        readonly price: ColType<"float64", false>;
        readonly time: ColType<"timestamp", false>;
      }>
    >();
  });

  it("types collected rows", () => {
    type Row = RowOf<NonNullable<(typeof clicks)["__schema"]>>;
    expectTypeOf<Row>().toEqualTypeOf<{ user: string; page: string | null; durationMs: number; price: number; time: Date }>();
  });

  it("select keeps names, aliases and computed types", () => {
    const out = clicks.select("user", col("price").multiply(2).alias("double"), col("durationMs").plus(1).alias("next"), lower(col("user")));
    type S = NonNullable<(typeof out)["__schema"]>;
    expectTypeOf<S["user"]>().toEqualTypeOf<ColType<"string", false>>();
    expectTypeOf<S["double"]>().toEqualTypeOf<ColType<"float64", false>>();
    expectTypeOf<S["next"]>().toEqualTypeOf<ColType<"int32", false>>();
    expectTypeOf<S["lower(user)"]>().toEqualTypeOf<ColType<"string", false>>();
    expectTypeOf<keyof S>().toEqualTypeOf<"user" | "double" | "next" | "lower(user)">();
  });

  it("groupBy and agg produce key and aggregate columns", () => {
    const out = clicks
      .withWatermark("time", "1 minute")
      .groupBy(window(col("time"), "1 minute"), "user")
      .agg(count().alias("n"), sum(col("durationMs")), avg(col("price")).alias("mean"), max(col("time")));
    type S = NonNullable<(typeof out)["__schema"]>;
    expectTypeOf<keyof S>().toEqualTypeOf<"window" | "user" | "n" | "sum(durationMs)" | "mean" | "max(time)">();
    expectTypeOf<S["window"]>().toEqualTypeOf<ColType<"window", false>>();
    expectTypeOf<S["sum(durationMs)"]>().toEqualTypeOf<ColType<"int64", true>>();
    expectTypeOf<S["max(time)"]>().toEqualTypeOf<ColType<"timestamp", true>>();
    expectTypeOf<RowOf<S>["window"]>().toEqualTypeOf<WindowValue>();
  });

  it("count() names its column count", () => {
    const out = clicks.groupBy("page").count();
    expectTypeOf<keyof NonNullable<(typeof out)["__schema"]>>().toEqualTypeOf<"page" | "count">();
  });

  it("withColumn, withColumnRenamed and drop follow the names", () => {
    const out = clicks.withColumn("free", col("price").equalTo(lit(0))).withColumnRenamed("user", "who").drop("page");
    expectTypeOf<keyof NonNullable<(typeof out)["__schema"]>>().toEqualTypeOf<"who" | "durationMs" | "price" | "time" | "free">();
  });

  it("a join keeps the keys once and makes the right side nullable in a left join", () => {
    const Ad = z.object({ user: z.string(), campaign: z.string() });
    const ads = session.read.schema(Ad).json("ads.jsonl");
    const out = clicks.join(ads, "user", "left");
    type S = NonNullable<(typeof out)["__schema"]>;
    expectTypeOf<S["campaign"]>().toEqualTypeOf<ColType<"string", true>>();
    expectTypeOf<S["user"]>().toEqualTypeOf<ColType<"string", false>>();
  });

  it("from_json adds the schema's columns, nullable, to a select", () => {
    const Payload = z.object({ page: z.string(), ms: z.int32() });
    const out = clicks.select(from_json(col("user"), Payload), "time");
    type S = NonNullable<(typeof out)["__schema"]>;
    expectTypeOf<keyof S>().toEqualTypeOf<"page" | "ms" | "time">();
    expectTypeOf<S["ms"]>().toEqualTypeOf<ColType<"int32", true>>();
    expectTypeOf<S["time"]>().toEqualTypeOf<ColType<"timestamp", false>>();
  });

  it("rejects misspelt columns at compile time", () => {
    // @ts-expect-error "usr" is not a column
    clicks.select("usr");
    // @ts-expect-error "pgae" is not a column
    clicks.groupBy("pgae");
    // @ts-expect-error col("prcie") reads a column that does not exist
    clicks.filter(col("prcie").gt(1));
    // @ts-expect-error a watermark needs a timestamp column
    clicks.withWatermark("price", "1 minute");
    // @ts-expect-error drop of an unknown column
    clicks.drop("nope");
    // @ts-expect-error the memory stream's rows must match its schema
    session.memoryStream(Click).addData({ user: "a", durationMs: "slow", price: 1, time: new Date() });
  });
});
