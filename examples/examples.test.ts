import { describe, expect, it } from "vitest";
import { main as kmeans } from "./kmeans/main.js";

/** The examples run as their README describes them, and give these answers. */
describe.each([0, 2])("examples with %i workers", (workers) => {
  it("kmeans: centres trained offline with groupBy/agg score a stream through a vector UDF", async () => {
    const { centres, scores, perCluster } = await kmeans(workers);
    expect(centres.map(([x, y]) => [Number(x.toFixed(2)), Number(y.toFixed(2))])).toEqual([
      [-0.07, -0],
      [9.99, -0.03],
      [4.93, 7.96],
    ]);
    // Points are laid out around the true centres in turn (0, 1, 2, 0, ...), which the trained ones found.
    const ids = [1000, 1001, 1002, 1003, 1004, 1005, 2000, 2001, 2002, 2003, 2004, 2005];
    expect(scores).toEqual(ids.map((id) => ({ id, cluster: (id % 1000) % 3 })));
    expect(perCluster).toEqual([
      { cluster: 0, points: 4 },
      { cluster: 1, points: 4 },
      { cluster: 2, points: 4 },
    ]);
  }, 60_000);
});
