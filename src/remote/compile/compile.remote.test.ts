import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { Session } from "../../api/session.js";
import type { DataFrame } from "../../api/data-frame.js";
import { at } from "../../testing/fixtures.js";
import { col, concat, count, lit, lower, sum, avg, upper, when } from "../../api/functions.js";
import { remoteRows, sorted } from "./remote-parity.js";
import { type SparkTestClient, sparkTestClient } from "./testing-client.js";

const Sale = z.object({ shop: z.string(), item: z.string().nullable(), amount: z.number(), qty: z.int32(), time: z.date() });
const rows = [
  { shop: "North", item: "Tea", amount: 2.5, qty: 2, time: at("09:15", 30) },
  { shop: "South", item: null, amount: 10, qty: 1, time: at("10:45") },
  { shop: "North", item: "Cake", amount: 4, qty: 3, time: at("11:05") },
];

let client: SparkTestClient;
const session = new Session({ workers: 0 });
beforeAll(async () => {
  client = await sparkTestClient();
});
afterAll(async () => {
  await client?.close();
  await session.stop();
});

async function expectSameRows(df: DataFrame<any>, ordered = false): Promise<Record<string, unknown>[]> {
  const embedded = await df.collect();
  const remote = await remoteRows(client, session, df);
  if (ordered) expect(remote).toEqual(embedded);
  else expect(sorted(remote)).toEqual(sorted(embedded));
  return remote;
}

describe("static plans on Spark Connect give the embedded engine's rows", () => {
  it("select and filter", async () => {
    const df = session.createDataFrame(rows, Sale);
    const out = await expectSameRows(
      df.filter(col("qty").gt(1)).select("shop", col("amount").multiply(col("qty")), upper(col("item")), concat(lower(col("shop")), lit("-"), col("item")).alias("tag"), when(col("qty").gt(2), "many").otherwise("few").alias("size")),
    );
    expect(out).toHaveLength(2);
  });
  it("groupBy", async () => {
    const df = session.createDataFrame(rows, Sale);
    await expectSameRows(df.groupBy("shop").agg(count().alias("n"), sum(col("qty")), avg(col("amount"))));
  });
});
