import { describe, expectTypeOf, it } from "vitest";
import { z } from "zod";
import type { ColType, RowOf } from "../types/dtype.js";
import { col } from "./functions.js";
import type { Session } from "./session.js";
import { udf, vectorUdf } from "./udf.js";

declare const session: Session;
const Point = z.object({ id: z.int32(), x: z.number(), y: z.number(), name: z.string() });
const points = session.readStream.schema(Point).json("points/");
const model = new URL("file:///models/kmeans.js");

describe("UDF types", () => {
  it("a result column has the declared type, nullable unless nullable: false, named name(args) as Spark names UDF columns", () => {
    const cluster = vectorUdf(model, "nearest", "int32", { nullable: false, args: { centres: [[0, 0]] } });
    const distance = udf(model, "distance", "float64");
    const out = points.select(col("id"), cluster(col("x"), col("y")), distance(col("x")).alias("d"));
    type S = NonNullable<(typeof out)["__schema"]>;
    expectTypeOf<keyof S>().toEqualTypeOf<"id" | "nearest(x, y)" | "d">();
    expectTypeOf<S["nearest(x, y)"]>().toEqualTypeOf<ColType<"int32", false>>();
    expectTypeOf<S["d"]>().toEqualTypeOf<ColType<"float64", true>>();
    expectTypeOf<RowOf<S>>().toEqualTypeOf<{ id: number; "nearest(x, y)": number; d: number | null }>();
  });

  it("takes a zod schema as the result type, with its nullability, and a name for the column", () => {
    const when = udf(model, "seen", z.date(), { name: "seenAt" });
    const tag = udf(model, "tag", z.string().nullable());
    const out = points.withColumn("t", when(col("id"))).select(col("t"), tag(col("name"), col("id")));
    type S = NonNullable<(typeof out)["__schema"]>;
    expectTypeOf<S["t"]>().toEqualTypeOf<ColType<"timestamp", false>>();
    expectTypeOf<S["tag(name, id)"]>().toEqualTypeOf<ColType<"string", true>>();
  });

  it("a boolean UDF filters; a UDF over a column the input lacks does not compile", () => {
    const keep = udf(model, "keep", "boolean");
    expectTypeOf<NonNullable<ReturnType<typeof points.filter>["__schema"]>>().toEqualTypeOf<NonNullable<(typeof points)["__schema"]>>();
    points.filter(keep(col("x")));
    // @ts-expect-error: "z" is not a column of points
    points.select(keep(col("z")));
    // @ts-expect-error: arguments are Columns, not names
    keep("x");
    // @ts-expect-error: window is no UDF result type
    udf(model, "w", "window");
  });
});
