import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { DataFrame } from "../api/data-frame.js";
import { lower, upper } from "../api/functions.js";
import type { Session } from "../api/session.js";
import { AnalysisError } from "../errors/errors.js";
import { sessionsPerFile } from "../testing/fixtures.js";
import { addData, checkAnswer, checkNewAnswer, testStream } from "../testing/stream-test.js";

/**
 * Stream-static joins of every join type Spark allows, on columns and on conditions: the static
 * side is probed through its shared hash table on the equalities of the condition, the rest of the
 * condition is checked per pair, and the output is what the same join gives on two static
 * DataFrames. Spark's refusals come with Spark's messages.
 */
const Order = z.object({ orderId: z.int(), customer: z.string().nullable(), amount: z.int() });
const Customer = z.object({ customer: z.string().nullable(), tier: z.string(), limit: z.int() });
const Band = z.object({ band: z.string(), low: z.int(), high: z.int() });

const customerRows = [
  { customer: "ann", tier: "gold", limit: 100 },
  { customer: "bob", tier: "silver", limit: 50 },
  { customer: "bob", tier: "bronze", limit: 20 },
  // A null key matches nothing, not even the stream's null keys.
  { customer: null, tier: "none", limit: 0 },
];
const firstOrders = [
  { orderId: 1, customer: "ann", amount: 120 },
  { orderId: 2, customer: "bob", amount: 30 },
  { orderId: 3, customer: "cy", amount: 10 },
  { orderId: 4, customer: null, amount: 5 },
];
const laterOrders = [
  { orderId: 5, customer: "ann", amount: 80 },
  { orderId: 6, customer: "bob", amount: 60 },
];
const bandRows = [
  { band: "small", low: 0, high: 49 },
  { band: "medium", low: 50, high: 99 },
  { band: "large", low: 100, high: 999 },
];

const sessionFor = sessionsPerFile("static-join-conditions");

function inputs(session: Session) {
  const orders = session.memoryStream(Order);
  return { orders, stream: orders.toDF(), customers: session.createDataFrame(customerRows, Customer), bands: session.createDataFrame(bandRows, Band) };
}

/** An order paid over its customer's limit: an equality key and a residual comparison across the sides. */
function overLimit(o: DataFrame<any>, c: DataFrame<any>) {
  return o.col("customer").equalTo(c.col("customer")).and(o.col("amount").gt(c.col("limit")));
}

describe.each([0, 2])("stream-static joins with %i workers", (workers) => {
  describe("the stream on the left, a condition with an equality key and a residual comparison", () => {
    it("inner: the pairs that pass the whole condition; a right column named like a left one is <name>_right", async () => {
      const { orders, stream, customers } = inputs(sessionFor(workers));
      const joined = stream.join(customers, overLimit(stream, customers), "inner");
      expect(joined.columns).toEqual(["orderId", "customer", "amount", "customer_right", "tier", "limit"]);
      await testStream(joined, "append").run(
        addData(orders, ...firstOrders),
        checkNewAnswer(
          { orderId: 1, customer: "ann", amount: 120, customer_right: "ann", tier: "gold", limit: 100 },
          { orderId: 2, customer: "bob", amount: 30, customer_right: "bob", tier: "bronze", limit: 20 },
        ),
        addData(orders, ...laterOrders),
        checkNewAnswer(
          { orderId: 6, customer: "bob", amount: 60, customer_right: "bob", tier: "silver", limit: 50 },
          { orderId: 6, customer: "bob", amount: 60, customer_right: "bob", tier: "bronze", limit: 20 },
        ),
      );
    });

    it("left outer: a stream row whose pairs all fail, or that has none, or a null key, comes once with nulls", async () => {
      const { orders, stream, customers } = inputs(sessionFor(workers));
      const none = { customer_right: null, tier: null, limit: null };
      await testStream(stream.join(customers, overLimit(stream, customers), "left_outer"), "append").run(
        addData(orders, ...firstOrders),
        checkNewAnswer(
          { orderId: 1, customer: "ann", amount: 120, customer_right: "ann", tier: "gold", limit: 100 },
          { orderId: 2, customer: "bob", amount: 30, customer_right: "bob", tier: "bronze", limit: 20 },
          { orderId: 3, customer: "cy", amount: 10, ...none },
          { orderId: 4, customer: null, amount: 5, ...none },
        ),
        addData(orders, ...laterOrders),
        checkNewAnswer(
          { orderId: 5, customer: "ann", amount: 80, ...none },
          { orderId: 6, customer: "bob", amount: 60, customer_right: "bob", tier: "silver", limit: 50 },
          { orderId: 6, customer: "bob", amount: 60, customer_right: "bob", tier: "bronze", limit: 20 },
        ),
      );
    });

    it("left semi: each stream row with a passing pair, once however many pairs pass, with the stream's columns only", async () => {
      const { orders, stream, customers } = inputs(sessionFor(workers));
      const joined = stream.join(customers, overLimit(stream, customers), "left_semi");
      expect(joined.columns).toEqual(["orderId", "customer", "amount"]);
      await testStream(joined, "append").run(
        addData(orders, ...firstOrders),
        checkNewAnswer({ orderId: 1, customer: "ann", amount: 120 }, { orderId: 2, customer: "bob", amount: 30 }),
        addData(orders, ...laterOrders),
        checkNewAnswer({ orderId: 6, customer: "bob", amount: 60 }),
      );
    });

    it("left anti: each stream row without a passing pair, null keys included", async () => {
      const { orders, stream, customers } = inputs(sessionFor(workers));
      await testStream(stream.join(customers, overLimit(stream, customers), "left_anti"), "append").run(
        addData(orders, ...firstOrders),
        checkNewAnswer({ orderId: 3, customer: "cy", amount: 10 }, { orderId: 4, customer: null, amount: 5 }),
        addData(orders, ...laterOrders),
        checkNewAnswer({ orderId: 5, customer: "ann", amount: 80 }),
      );
    });
  });

  describe("the stream on the left, on columns", () => {
    it("left semi: a key the static side has twice still gives its stream row once", async () => {
      const { orders, stream, customers } = inputs(sessionFor(workers));
      await testStream(stream.join(customers, "customer", "semi"), "append").run(
        addData(orders, ...firstOrders),
        checkNewAnswer({ orderId: 1, customer: "ann", amount: 120 }, { orderId: 2, customer: "bob", amount: 30 }),
        addData(orders, ...laterOrders),
        checkNewAnswer({ orderId: 5, customer: "ann", amount: 80 }, { orderId: 6, customer: "bob", amount: 60 }),
      );
    });

    it("left anti: the stream rows whose key the static side lacks; a batch where every key is there gives nothing", async () => {
      const { orders, stream, customers } = inputs(sessionFor(workers));
      await testStream(stream.join(customers, ["customer"], "leftanti"), "append").run(
        addData(orders, ...firstOrders),
        checkNewAnswer({ orderId: 3, customer: "cy", amount: 10 }, { orderId: 4, customer: null, amount: 5 }),
        addData(orders, ...laterOrders),
        checkNewAnswer(),
      );
    });
  });

  describe("the stream on the right (Spark's mirror)", () => {
    it("right outer on a condition: the static columns first, nulls where a stream row has no passing pair", async () => {
      const { orders, stream, customers } = inputs(sessionFor(workers));
      const joined = customers.join(stream, customers.col("customer").equalTo(stream.col("customer")).and(stream.col("amount").gt(customers.col("limit"))), "right");
      expect(joined.columns).toEqual(["customer", "tier", "limit", "orderId", "customer_right", "amount"]);
      const none = { customer: null, tier: null, limit: null };
      await testStream(joined, "append").run(
        addData(orders, ...firstOrders),
        checkNewAnswer(
          { customer: "ann", tier: "gold", limit: 100, orderId: 1, customer_right: "ann", amount: 120 },
          { customer: "bob", tier: "bronze", limit: 20, orderId: 2, customer_right: "bob", amount: 30 },
          { ...none, orderId: 3, customer_right: "cy", amount: 10 },
          { ...none, orderId: 4, customer_right: null, amount: 5 },
        ),
        addData(orders, ...laterOrders),
        checkNewAnswer(
          { ...none, orderId: 5, customer_right: "ann", amount: 80 },
          { customer: "bob", tier: "silver", limit: 50, orderId: 6, customer_right: "bob", amount: 60 },
          { customer: "bob", tier: "bronze", limit: 20, orderId: 6, customer_right: "bob", amount: 60 },
        ),
      );
    });

    it("right outer on columns: the key once, taken from the stream", async () => {
      const { orders, stream, customers } = inputs(sessionFor(workers));
      const joined = customers.join(stream, "customer", "right_outer");
      expect(joined.columns).toEqual(["customer", "tier", "limit", "orderId", "amount"]);
      await testStream(joined, "append").run(
        addData(orders, ...firstOrders),
        checkNewAnswer(
          { customer: "ann", tier: "gold", limit: 100, orderId: 1, amount: 120 },
          { customer: "bob", tier: "silver", limit: 50, orderId: 2, amount: 30 },
          { customer: "bob", tier: "bronze", limit: 20, orderId: 2, amount: 30 },
          { customer: "cy", tier: null, limit: null, orderId: 3, amount: 10 },
          { customer: null, tier: null, limit: null, orderId: 4, amount: 5 },
        ),
      );
    });

    it("inner on columns", async () => {
      const { orders, stream, customers } = inputs(sessionFor(workers));
      await testStream(customers.join(stream, "customer"), "append").run(
        addData(orders, ...firstOrders),
        checkNewAnswer(
          { customer: "ann", tier: "gold", limit: 100, orderId: 1, amount: 120 },
          { customer: "bob", tier: "silver", limit: 50, orderId: 2, amount: 30 },
          { customer: "bob", tier: "bronze", limit: 20, orderId: 2, amount: 30 },
        ),
      );
    });
  });

  describe("conditions of other shapes", () => {
    it("one side's own conjuncts: a static row failing its part never matches, a stream row failing its part keeps its NULL row", async () => {
      const { orders, stream, customers } = inputs(sessionFor(workers));
      const condition = stream
        .col("customer")
        .equalTo(customers.col("customer"))
        .and(customers.col("tier").notEqual("bronze"))
        .and(stream.col("amount").geq(30));
      await testStream(stream.join(customers, condition, "left"), "append").run(
        addData(orders, ...firstOrders, { orderId: 7, customer: "ann", amount: 10 }),
        checkNewAnswer(
          { orderId: 1, customer: "ann", amount: 120, customer_right: "ann", tier: "gold", limit: 100 },
          { orderId: 2, customer: "bob", amount: 30, customer_right: "bob", tier: "silver", limit: 50 },
          { orderId: 3, customer: "cy", amount: 10, customer_right: null, tier: null, limit: null },
          { orderId: 4, customer: null, amount: 5, customer_right: null, tier: null, limit: null },
          { orderId: 7, customer: "ann", amount: 10, customer_right: null, tier: null, limit: null },
        ),
      );
    });

    it("keys that are expressions of either side", async () => {
      const { orders, stream, customers } = inputs(sessionFor(workers));
      const byLower = stream.join(customers, lower(stream.col("customer")).equalTo(customers.col("customer")), "left_semi");
      await testStream(byLower, "append").run(
        addData(orders, { orderId: 8, customer: "ANN", amount: 1 }, { orderId: 9, customer: "Cy", amount: 1 }),
        checkNewAnswer({ orderId: 8, customer: "ANN", amount: 1 }),
      );
      const s = inputs(sessionFor(workers));
      const byUpper = s.stream.join(s.customers, s.stream.col("customer").equalTo(upper(s.customers.col("customer"))), "inner");
      await testStream(byUpper.select("orderId", "tier"), "append").run(
        addData(s.orders, { orderId: 8, customer: "BOB", amount: 1 }, { orderId: 9, customer: "bob", amount: 1 }),
        checkNewAnswer({ orderId: 8, tier: "silver" }, { orderId: 8, tier: "bronze" }),
      );
    });

    it("no equality between the sides: every stream row meets every static row (Spark's broadcast nested-loop join)", async () => {
      const { orders, stream, bands } = inputs(sessionFor(workers));
      const inBand = stream.col("amount").between(bands.col("low"), bands.col("high"));
      await testStream(stream.join(bands, inBand, "left").select("orderId", "band"), "append").run(
        addData(orders, ...firstOrders, { orderId: 7, customer: "dee", amount: 5000 }),
        checkNewAnswer(
          { orderId: 1, band: "large" },
          { orderId: 2, band: "small" },
          { orderId: 3, band: "small" },
          { orderId: 4, band: "small" },
          { orderId: 7, band: null },
        ),
        addData(orders, ...laterOrders),
        checkNewAnswer({ orderId: 5, band: "medium" }, { orderId: 6, band: "medium" }),
      );
    });

    it("no equality, semi and anti", async () => {
      const s = inputs(sessionFor(workers));
      const big = s.stream.join(s.bands, s.stream.col("amount").gt(s.bands.col("high")), "left_anti");
      await testStream(big, "append").run(
        addData(s.orders, ...firstOrders, { orderId: 7, customer: "dee", amount: 5000 }),
        checkNewAnswer({ orderId: 4, customer: null, amount: 5 }, { orderId: 3, customer: "cy", amount: 10 }, { orderId: 2, customer: "bob", amount: 30 }),
      );
      const t = inputs(sessionFor(workers));
      const aboveAll = t.stream.join(t.bands, t.stream.col("amount").gt(t.bands.col("high")), "left_semi");
      await testStream(aboveAll, "append").run(
        addData(t.orders, ...firstOrders, { orderId: 7, customer: "dee", amount: 5000 }),
        checkNewAnswer({ orderId: 1, customer: "ann", amount: 120 }, { orderId: 7, customer: "dee", amount: 5000 }),
      );
    });

    it("an equality the hash table cannot take (binary values) is checked per pair", async () => {
      const session = sessionFor(workers);
      const Tagged = z.object({ id: z.int(), tag: z.instanceof(Uint8Array) });
      const tagged = session.memoryStream(Tagged);
      const labels = session.createDataFrame([{ tag: Uint8Array.of(1, 2), label: "one-two" }], z.object({ tag: z.instanceof(Uint8Array), label: z.string() }));
      const stream = tagged.toDF();
      await testStream(stream.join(labels, stream.col("tag").equalTo(labels.col("tag")), "left").select("id", "label"), "append").run(
        addData(tagged, { id: 1, tag: Uint8Array.of(1, 2) }, { id: 2, tag: Uint8Array.of(1) }),
        checkNewAnswer({ id: 1, label: "one-two" }, { id: 2, label: null }),
      );
    });
  });

  describe("gives what the same join gives on two static DataFrames, names, types and rows", () => {
    const shapes: [string, (o: DataFrame<any>, c: DataFrame<any>) => DataFrame<any>][] = [
      ["inner on a condition", (o, c) => o.join(c, overLimit(o, c), "inner")],
      ["left outer on a condition", (o, c) => o.join(c, overLimit(o, c), "left")],
      ["left semi on a condition", (o, c) => o.join(c, overLimit(o, c), "left_semi")],
      ["left anti on a condition", (o, c) => o.join(c, overLimit(o, c), "left_anti")],
      ["left outer on columns", (o, c) => o.join(c, "customer", "left")],
      ["right outer on a condition, the stream on the right", (o, c) => c.join(o, c.col("customer").equalTo(o.col("customer")).and(o.col("amount").gt(c.col("limit"))), "right")],
      ["right outer on columns, the stream on the right", (o, c) => c.join(o, "customer", "right")],
    ];
    it.each(shapes)("%s", async (_name, join) => {
      const session = sessionFor(workers);
      const { orders, stream, customers } = inputs(session);
      const onStatic = join(session.createDataFrame([...firstOrders, ...laterOrders], Order), customers);
      const onStream = join(stream, customers);
      expect(onStream.schema).toEqual(onStatic.schema);
      // The rows a static join's operator built have the nullability its logical schema promises.
      const built = (await onStatic.toArrow()).schema.fields.map((f) => ({ name: f.name, nullable: f.nullable }));
      expect(built).toEqual(onStatic.schema.map((f) => ({ name: f.name, nullable: f.nullable })));
      await testStream(onStream, "append").run(addData(orders, ...firstOrders), addData(orders, ...laterOrders), checkAnswer(...(await onStatic.collect())));
    });
  });

  describe("Spark's refusals, at start()", () => {
    const refusals: [string, (o: DataFrame<any>, c: DataFrame<any>) => DataFrame<any>, string][] = [
      [
        "a full outer join, the stream on the left",
        (o, c) => o.join(c, "customer", "full"),
        "FullOuter joins with streaming DataFrames/Datasets on the left and a static DataFrame/Dataset on the right is not supported: keep the stream's rows only, with a left outer join",
      ],
      [
        "a full outer join, the stream on the right",
        (o, c) => c.join(o, c.col("customer").equalTo(o.col("customer")), "outer"),
        "FullOuter joins with streaming DataFrames/Datasets on the right and a static DataFrame/Dataset on the left is not supported: keep the stream's rows only, with a right outer join",
      ],
      [
        "a left outer join, the stream on the right",
        (o, c) => c.join(o, c.col("customer").equalTo(o.col("customer")), "left"),
        "LeftOuter join with a streaming DataFrame/Dataset on the right and a static DataFrame/Dataset on the left is not supported: " +
          'put the stream on the left, stream.join(static, on, "left"), to keep the stream\'s rows',
      ],
      [
        "a left semi join, the stream on the right",
        (o, c) => c.join(o, "customer", "left_semi"),
        "LeftSemi join with a streaming DataFrame/Dataset on the right and a static DataFrame/Dataset on the left is not supported: " +
          'put the stream on the left, stream.join(static, on, "left_semi"), to keep the stream\'s rows',
      ],
      [
        "a left anti join, the stream on the right",
        (o, c) => c.join(o, "customer", "left_anti"),
        "LeftAnti joins with a streaming DataFrame/Dataset on the right are not supported: " +
          'put the stream on the left, stream.join(static, on, "left_anti"), to keep the stream rows without a match',
      ],
      [
        "a right outer join, the stream on the left",
        (o, c) => o.join(c, overLimit(o, c), "right"),
        "RightOuter join with a streaming DataFrame/Dataset on the left and a static DataFrame/DataSet on the right not supported: " +
          'keep the stream\'s rows with stream.join(static, on, "left"), or put the stream on the right',
      ],
      [
        "a left anti join of two streams",
        (o) => o.join(o.select("customer"), "customer", "left_anti"),
        "LeftAnti joins with a streaming DataFrame/Dataset on the right are not supported: " +
          "of two streams, a left outer join with watermarks gives each left row that found no match with nulls once the watermark passes it; filter those",
      ],
    ];
    it.each(refusals)("%s", (name, join, message) => {
      const { stream, customers } = inputs(sessionFor(workers));
      const start = () => join(stream, customers).writeStream.format("memory").queryName(`refused_${name.replace(/\W+/g, "_")}_${workers}`).start();
      expect(start).toThrow(AnalysisError);
      expect(start).toThrow(message);
    });
  });
});
