import { describe, expectTypeOf, it } from "vitest";
import { z } from "zod";
import type { ColType } from "../types/dtype.js";
import { col, count, explode, expr, interval, split, timestamp_seconds, window, window_time } from "./functions.js";
import type { Session } from "./session.js";

declare const session: Session;
const events = session.memoryStream(z.object({ line: z.string(), secs: z.int(), ratio: z.number(), time: z.date().nullable() })).toDF();

describe("the Structured Streaming guide's functions are typed", () => {
  it("timestamp_seconds, interval arithmetic and window_time give timestamps", () => {
    const out = events.select(
      timestamp_seconds(col("secs")).alias("a"),
      timestamp_seconds(col("ratio")).alias("b"),
      col("time").plus(interval("10 minutes")).alias("c"),
      col("time").minus(interval("1 hour")).alias("d"),
    );
    type S = NonNullable<(typeof out)["__schema"]>;
    expectTypeOf<S>().toEqualTypeOf<{
      readonly a: ColType<"timestamp", false>;
      readonly b: ColType<"timestamp", true>;
      readonly c: ColType<"timestamp", true>;
      readonly d: ColType<"timestamp", true>;
    }>();
    const windowed = events.groupBy(window(col("time"), "10 minutes")).agg(count().alias("n")).select(window_time(col("window")), "n");
    expectTypeOf<NonNullable<(typeof windowed)["__schema"]>["window_time(window)"]>().toEqualTypeOf<ColType<"timestamp", false>>();
  });

  it("explode(split(...)) is a string column named col or its alias; split's array alone is no column", () => {
    const words = events.select(explode(split(col("line"), " ")).alias("word"));
    expectTypeOf<NonNullable<(typeof words)["__schema"]>>().toEqualTypeOf<{ readonly word: ColType<"string", false> }>();
    // @ts-expect-error split() gives no column: only explode() takes it
    events.select(split(col("line"), " "));
    // @ts-expect-error the split column must exist
    events.select(explode(split(col("nope"), " ")));
  });

  it("expr() is an untyped column: any name, its type found at analysis", () => {
    const out = events.select(expr("secs * 2").alias("twice"));
    expectTypeOf<NonNullable<(typeof out)["__schema"]>["twice"]>().toEqualTypeOf<ColType>();
    events.filter(expr("secs > 1"));
    events.select(col("time").plus(expr("interval 10 minutes")).alias("later"));
  });
});
