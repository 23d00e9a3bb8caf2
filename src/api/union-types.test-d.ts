import { describe, expectTypeOf, it } from "vitest";
import { z } from "zod";
import type { ColType } from "../types/dtype.js";
import type { Session } from "./session.js";

declare const session: Session;
const Narrow = session.memoryStream(z.object({ id: z.int32(), score: z.int32(), label: z.string(), when: z.date() })).toDF();
const Wide = session.memoryStream(z.object({ id: z.int(), score: z.number().nullable(), label: z.int32(), when: z.date() })).toDF();

describe("the type of a union has the widened column types", () => {
  it("int32 with int64 is int64, int32 with double is double, a string with a number is a string, nullable where either is", () => {
    const both = Narrow.union(Wide);
    type S = NonNullable<(typeof both)["__schema"]>;
    expectTypeOf<S>().toEqualTypeOf<{
      readonly id: ColType<"int64", false>;
      readonly score: ColType<"float64", true>;
      readonly label: ColType<"string", false>;
      readonly when: ColType<"timestamp", false>;
    }>();
    const back = Wide.union(Narrow);
    expectTypeOf<NonNullable<(typeof back)["__schema"]>["label"]>().toEqualTypeOf<ColType<"string", false>>();
  });

  it("refuses a column with no common type at compile time", () => {
    const flags = session.memoryStream(z.object({ id: z.int32(), score: z.boolean(), label: z.string(), when: z.date() })).toDF();
    // @ts-expect-error a boolean has no common type with an int32
    Narrow.union(flags);
    const numbers = session.memoryStream(z.object({ id: z.int32(), score: z.int32(), label: z.string(), when: z.int() })).toDF();
    // @ts-expect-error a timestamp has no common type with an int64
    Narrow.union(numbers);
  });

  it("matches columns by position at run time: with other names, union<any>(other) gives the first input's names untyped", () => {
    const other = session.memoryStream(z.object({ key: z.int(), points: z.number(), tag: z.int32(), at: z.date() })).toDF();
    // @ts-expect-error the type follows columns of the same names only
    Narrow.union(other);
    expectTypeOf(Narrow.union<any>(other).columns).toEqualTypeOf<("id" | "score" | "label" | "when")[]>();
  });
});
