import { describe, expectTypeOf, it } from "vitest";
import { z } from "zod";
import type { ProtoSchema } from "../formats/protobuf/proto-descriptor.js";
import type { ColType } from "../types/dtype.js";
import { col, struct } from "./functions.js";
import type { Session } from "./session.js";
import { from_avro, from_protobuf, to_avro, to_protobuf } from "./value-functions.js";

declare const session: Session;
declare const shop: ProtoSchema;
const Raw = z.object({ value: z.instanceof(Uint8Array).nullable(), offset: z.int() });
const Order = z.object({ id: z.int32(), item: z.string() });
const raw = session.createDataFrame([], Raw);

describe("from_avro / from_protobuf / to_avro / to_protobuf types", () => {
  it("from_avro and from_protobuf add the zod schema's columns, nullable, beside the other selected columns", () => {
    const avro = raw.select(from_avro(col("value"), Order), "offset");
    type A = NonNullable<(typeof avro)["__schema"]>;
    expectTypeOf<keyof A>().toEqualTypeOf<"id" | "item" | "offset">();
    expectTypeOf<A["id"]>().toEqualTypeOf<ColType<"int32", true>>();
    expectTypeOf<A["item"]>().toEqualTypeOf<ColType<"string", true>>();
    const proto = raw.select(from_protobuf(col("value"), Order, "shop.Order", shop));
    expectTypeOf<keyof NonNullable<(typeof proto)["__schema"]>>().toEqualTypeOf<"id" | "item">();
  });

  it("to_avro and to_protobuf are binary columns named by their alias", () => {
    const orders = session.createDataFrame([], Order);
    const out = orders.select(to_avro(struct("id", "item")).alias("value"), to_protobuf(struct("id"), "shop.Order", shop).alias("p"));
    type S = NonNullable<(typeof out)["__schema"]>;
    expectTypeOf<keyof S>().toEqualTypeOf<"value" | "p">();
    expectTypeOf<S["value"]>().toEqualTypeOf<ColType<"binary", false>>();
  });

  it("a misspelt column is a compile error", () => {
    // @ts-expect-error: "valeu" is not a column of raw
    raw.select(from_avro(col("valeu"), Order));
  });
});
