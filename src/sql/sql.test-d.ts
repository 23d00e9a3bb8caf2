import { describe, expectTypeOf, it } from "vitest";
import type { DataFrame } from "../api/data-frame.js";
import type { Session } from "../api/session.js";
import type { ParseException } from "../errors/errors.js";
import type { ColType, RowOf, SchemaShape } from "../types/dtype.js";

declare const session: Session;

type Counts = {
  readonly word: ColType<"string", false>;
  readonly n: ColType<"int64", false>;
};

describe("the type of session.sql", () => {
  it("is a DataFrame of the schema the caller states", () => {
    const counts = session.sql<Counts>("SELECT word, count(*) AS n FROM words GROUP BY word");
    expectTypeOf(counts).toEqualTypeOf<DataFrame<Counts>>();
    expectTypeOf(counts.columns).toEqualTypeOf<("word" | "n")[]>();
    expectTypeOf(counts.collect()).resolves.toEqualTypeOf<RowOf<Counts>[]>();
    expectTypeOf<RowOf<Counts>>().toEqualTypeOf<{ word: string; n: number }>();
    // The stated schema types the DataFrame API after SQL: a misspelt column does not compile.
    counts.select("word");
    // @ts-expect-error "wrod" is no column of Counts
    counts.select("wrod");
  });

  it("is an untyped DataFrame when no schema is stated", () => {
    expectTypeOf(session.sql("SELECT * FROM words")).toEqualTypeOf<DataFrame<SchemaShape>>();
  });

  it("a ParseException carries Spark's line, position, class and SQLSTATE", () => {
    expectTypeOf<ParseException["line"]>().toEqualTypeOf<number>();
    expectTypeOf<ParseException["column"]>().toEqualTypeOf<number>();
    expectTypeOf<ParseException["errorClass"]>().toEqualTypeOf<string | undefined>();
    expectTypeOf<ParseException["sqlState"]>().toEqualTypeOf<string | undefined>();
  });
});
