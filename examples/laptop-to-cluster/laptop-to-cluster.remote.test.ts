import { describe, expect, it } from "vitest";
import { sparkRemote } from "../../src/testing/spark-connect.js";
import { laptopToCluster } from "./main.js";

describe("examples/laptop-to-cluster", () => {
  it("the same query gives the same final windows embedded and on Spark", async () => {
    const { embedded, onSpark } = await laptopToCluster(sparkRemote());
    expect(embedded).toHaveLength(20);
    expect(embedded[0]).toEqual({ start: "2026-03-01T10:00:00.000Z", page: "/cart", views: 133, avgDurationMs: 2694.127819548872 });
    expect(onSpark).toEqual(embedded);
  }, 120_000);
});
