import { describe, expect, it } from "vitest";
import { z } from "zod";
import { withSession } from "../testing/fixtures.js";
import { col } from "./functions.js";

/**
 * Joins of two static DataFrames of every join type, on columns and on conditions: they run as the
 * symmetric hash join that streams use, whose end of input emits each unmatched row of a
 * preserved side with nulls.
 */
const Person = z.object({ id: z.int(), name: z.string() });
const Order = z.object({ id: z.int(), amount: z.int() });
const people = [
  { id: 1, name: "ann" },
  { id: 2, name: "bob" },
  { id: 3, name: "cy" },
];
const orders = [
  { id: 2, amount: 10 },
  { id: 3, amount: 20 },
  { id: 3, amount: 5 },
  { id: 4, amount: 7 },
];
const byJson = (rows: readonly object[]) => rows.map((r) => JSON.stringify(r)).sort();

describe.each([0, 2])("static joins with %i workers", (workers) => {
  it.each([
    ["right", [{ id: 2, name: "bob", amount: 10 }, { id: 3, name: "cy", amount: 20 }, { id: 3, name: "cy", amount: 5 }, { id: 4, name: null, amount: 7 }]],
    ["full", [{ id: 1, name: "ann", amount: null }, { id: 2, name: "bob", amount: 10 }, { id: 3, name: "cy", amount: 20 }, { id: 3, name: "cy", amount: 5 }, { id: 4, name: null, amount: 7 }]],
    ["left_semi", [{ id: 2, name: "bob" }, { id: 3, name: "cy" }]],
  ] as const)("on columns, %s", (how, expected) =>
    withSession(workers, async (session) => {
      const joined = session.createDataFrame(people, Person).join(session.createDataFrame(orders, Order), "id", how);
      expect(byJson(await joined.collect())).toEqual(byJson(expected));
    }));

  it("on a condition with a non-equality part, left outer: a row whose pairs all fail keeps its NULL row", () =>
    withSession(workers, async (session) => {
      const p = session.createDataFrame(people, Person);
      const o = session.createDataFrame(orders, Order);
      const joined = p.join(o, p.col("id").equalTo(o.col("id")).and(o.col("amount").gt(6)), "left").select(col("id"), col("name"), col("id_right"), col("amount"));
      expect(byJson(await joined.collect())).toEqual(
        byJson([
          { id: 1, name: "ann", id_right: null, amount: null },
          { id: 2, name: "bob", id_right: 2, amount: 10 },
          { id: 3, name: "cy", id_right: 3, amount: 20 },
        ]),
      );
    }));

  it("names each side's column with df.col, and refuses a bare name both sides have", () =>
    withSession(workers, async (session) => {
      const p = session.createDataFrame(people, Person);
      const o = session.createDataFrame(orders, Order);
      expect(() => p.join(o, col("id").equalTo(col("id")))).toThrow('column "id" of the join condition is ambiguous: both sides have it; name one side\'s with left.col("id") or right.col("id")');
      const inner = p.join(o, p.col("id").equalTo(o.col("id")));
      expect(inner.columns).toEqual(["id", "name", "id_right", "amount"]);
      expect(await inner.count()).toBe(3);
    }));
});
