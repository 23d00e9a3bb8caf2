import { describe, expectTypeOf, it } from "vitest";
import { z } from "zod";
import type { ColType } from "../types/dtype.js";
import type { Session } from "./session.js";

declare const session: Session;
const Impressions = session.memoryStream(z.object({ adId: z.int(), impressionTime: z.date() })).toDF();
const Clicks = session.memoryStream(z.object({ adId: z.int(), clickTime: z.date(), cost: z.number() })).toDF();

describe("the type of a join follows its type and its keys", () => {
  it("on columns: the keys once, the side an outer join may leave unmatched nullable", () => {
    const left = Impressions.join(Clicks, "adId", "left_outer");
    expectTypeOf<NonNullable<(typeof left)["__schema"]>>().toEqualTypeOf<{
      readonly adId: ColType<"int64", false>;
      readonly impressionTime: ColType<"timestamp", false>;
      readonly clickTime: ColType<"timestamp", true>;
      readonly cost: ColType<"float64", true>;
    }>();
    const right = Impressions.join(Clicks, "adId", "right");
    expectTypeOf<NonNullable<(typeof right)["__schema"]>["impressionTime"]>().toEqualTypeOf<ColType<"timestamp", true>>();
    expectTypeOf<NonNullable<(typeof right)["__schema"]>["cost"]>().toEqualTypeOf<ColType<"float64", false>>();
    const semi = Impressions.join(Clicks, "adId", "left_semi");
    expectTypeOf<NonNullable<(typeof semi)["__schema"]>>().toEqualTypeOf<{ readonly adId: ColType<"int64", false>; readonly impressionTime: ColType<"timestamp", false> }>();
  });

  it("on a condition: both sides' columns, a right column named like a left one as <name>_right", () => {
    const joined = Impressions.join(Clicks, Impressions.col("adId").equalTo(Clicks.col("adId")).and(Clicks.col("clickTime").geq(Impressions.col("impressionTime"))), "full");
    expectTypeOf<NonNullable<(typeof joined)["__schema"]>>().toEqualTypeOf<{
      readonly adId: ColType<"int64", true>;
      readonly impressionTime: ColType<"timestamp", true>;
      readonly adId_right: ColType<"int64", true>;
      readonly clickTime: ColType<"timestamp", true>;
      readonly cost: ColType<"float64", true>;
    }>();
  });

  it("left anti, on columns or on a condition, in Spark's spellings: the left columns only, as they are", () => {
    type Left = { readonly adId: ColType<"int64", false>; readonly impressionTime: ColType<"timestamp", false> };
    const onColumns = Impressions.join(Clicks, "adId", "left_anti");
    expectTypeOf<NonNullable<(typeof onColumns)["__schema"]>>().toEqualTypeOf<Left>();
    const onCondition = Impressions.join(Clicks, Impressions.col("adId").equalTo(Clicks.col("adId")).and(Clicks.col("cost").gt(1)), "anti");
    expectTypeOf<NonNullable<(typeof onCondition)["__schema"]>>().toEqualTypeOf<Left>();
    const spelt = Impressions.join(Clicks, ["adId"], "leftanti");
    expectTypeOf<NonNullable<(typeof spelt)["__schema"]>>().toEqualTypeOf<Left>();
  });

  it("a static left side of a right outer join on a condition: the static columns nullable, the stream's as they are", () => {
    const Ads = session.createDataFrame([], z.object({ adId: z.int(), campaign: z.string() }));
    const joined = Ads.join(Clicks, Ads.col("adId").equalTo(Clicks.col("adId")), "right_outer");
    expectTypeOf<NonNullable<(typeof joined)["__schema"]>>().toEqualTypeOf<{
      readonly adId: ColType<"int64", true>;
      readonly campaign: ColType<"string", true>;
      readonly adId_right: ColType<"int64", false>;
      readonly clickTime: ColType<"timestamp", false>;
      readonly cost: ColType<"float64", false>;
    }>();
  });

  it("refuses a misspelt key or join type at compile time", () => {
    // @ts-expect-error "adid" is not a column of both sides
    Impressions.join(Clicks, "adid");
    // @ts-expect-error "sideways" is not a join type
    Impressions.join(Clicks, "adId", "sideways");
  });
});
