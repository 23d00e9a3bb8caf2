import { describe, expectTypeOf, it } from "vitest";
import { z } from "zod";
import type { ColType } from "../types/dtype.js";
import { StructColumn } from "./column.js";
import { col, count, lower, struct, to_json, unix_micros, unix_millis, unix_seconds, window } from "./functions.js";
import type { Session } from "./session.js";

declare const session: Session;
const Event = z.object({ campaign_id: z.string(), timestamp: z.date(), note: z.string().optional() });
const events = session.readStream.schema(Event).json("events/");
const counts = events
  .withWatermark("timestamp", "10 seconds")
  .groupBy(window(col("timestamp"), "10 seconds"), "campaign_id")
  .agg(count().alias("count"));

describe("unix_millis, struct and to_json types", () => {
  it("unix_seconds / unix_millis / unix_micros are int64 with the timestamp's nullability and Spark's names", () => {
    const out = counts.select(unix_millis(col("window.start")), unix_seconds(col("window").getField("end")).alias("end_s"), unix_micros(col("window.end")).alias("end_us"));
    type S = NonNullable<(typeof out)["__schema"]>;
    expectTypeOf<keyof S>().toEqualTypeOf<"unix_millis(start)" | "end_s" | "end_us">();
    expectTypeOf<S["unix_millis(start)"]>().toEqualTypeOf<ColType<"int64", false>>();
    expectTypeOf<S["end_s"]>().toEqualTypeOf<ColType<"int64", false>>();
  });

  it("to_json(struct(...)) is a non-null string column named by its alias or Spark's auto-name", () => {
    const out = counts.select(
      to_json(struct(unix_millis(col("window.start")).alias("window_start"), col("campaign_id").alias("key"), col("count"))).alias("value"),
      to_json(struct("campaign_id", col("count"))),
    );
    type S = NonNullable<(typeof out)["__schema"]>;
    expectTypeOf<keyof S>().toEqualTypeOf<"value" | "to_json(struct(campaign_id, count))">();
    expectTypeOf<S["value"]>().toEqualTypeOf<ColType<"string", false>>();
  });

  it("to_json of a window column follows the window's nullability", () => {
    const out = counts.select(to_json(col("window")).alias("w"));
    expectTypeOf<NonNullable<(typeof out)["__schema"]>["w"]>().toEqualTypeOf<ColType<"string", false>>();
  });

  it("struct() returns a StructColumn that remembers the columns it reads", () => {
    const s = struct(col("a"), "b.start", struct(col("c")).alias("inner"));
    expectTypeOf(s).toEqualTypeOf<StructColumn<"a" | "b" | "c", "struct(a, start, inner)">>();
  });

  it("rejects misspelt columns and structs outside to_json at compile time", () => {
    // @ts-expect-error col("campaing_id") is not a column
    counts.select(to_json(struct(col("campaing_id"))));
    // @ts-expect-error "cuont" is not a column
    counts.select(to_json(struct("cuont")));
    // @ts-expect-error a misspelt column inside a nested struct
    counts.select(to_json(struct(struct(col("windw.start")))));
    // @ts-expect-error a struct is not a column: it can only go to to_json()
    counts.select(struct(col("count")));
    // @ts-expect-error nor to other functions
    lower(struct(col("count")));
    // @ts-expect-error nor to filter
    counts.filter(struct(col("count")));
    // @ts-expect-error unix_millis needs a column, not a struct
    unix_millis(struct(col("count")));
  });
});
