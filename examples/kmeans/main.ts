/**
 * Learn offline, predict online: k-means cluster centres are trained on a static DataFrame with
 * Sluice's own aggregations (a few Lloyd iterations: assign each point to its nearest centre with a
 * vector UDF, then move each centre to the mean of its points with groupBy/agg), and the trained
 * model then scores a stream through the same UDF, its centres bound as args.
 *
 *   npx tsx examples/kmeans/main.ts
 */
import { pathToFileURL } from "node:url";
import { z } from "zod";
import { avg, col, count, Session, vectorUdf } from "../../src/index.js";
import type { Centres } from "./model.js";

const MODEL = new URL("./model.ts", import.meta.url);
const Point = z.object({ id: z.int32(), x: z.number(), y: z.number() });
type Point = z.infer<typeof Point>;
const ITERATIONS = 5;

/** Deterministic xorshift32 in [0, 1). */
function random(seed: number): () => number {
  let s = seed;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4294967296;
  };
}

/** `n` points scattered (±1) around each of three true centres. */
export function samplePoints(n: number, seed: number, firstId = 0): Point[] {
  const next = random(seed);
  const truth = [
    [0, 0],
    [10, 0],
    [5, 8],
  ] as const;
  return Array.from({ length: n }, (_, i) => {
    const [cx, cy] = truth[i % truth.length]!;
    return { id: firstId + i, x: cx + (next() * 2 - 1), y: cy + (next() * 2 - 1) };
  });
}

const assign = (centres: Centres["centres"]) => vectorUdf(MODEL, "nearestCentre", "int32", { args: { centres }, nullable: false, name: "cluster" });

/** Lloyd's algorithm over a static DataFrame: each iteration is one Sluice query (assign, then average per cluster). */
export async function train(session: Session, points: readonly Point[], k: number): Promise<[number, number][]> {
  const df = session.createDataFrame(points, Point);
  let centres: [number, number][] = points.slice(0, k).map((p) => [p.x, p.y]);
  for (let iteration = 0; iteration < ITERATIONS; iteration++) {
    const means = await df
      .withColumn("cluster", assign(centres)(col("x"), col("y")))
      .groupBy("cluster")
      .agg(avg(col("x")).alias("x"), avg(col("y")).alias("y"))
      .collect();
    // A centre that lost all its points stays where it was.
    centres = centres.map((c, i) => {
      const m = means.find((r) => r.cluster === i);
      return m && m.x !== null && m.y !== null ? [m.x, m.y] : c;
    });
  }
  return centres;
}

/** Scores a stream of points with the trained centres: each point's cluster, and a running count per cluster. */
export async function score(session: Session, centres: [number, number][], batches: readonly Point[][]) {
  const points = session.memoryStream(Point);
  const scored = points.toDF().select(col("id"), assign(centres)(col("x"), col("y")).alias("cluster"));
  const scores = scored.writeStream.format("memory").queryName("scores").outputMode("append").start();
  const perCluster = scored.groupBy("cluster").agg(count().alias("points")).writeStream.format("memory").queryName("per_cluster").outputMode("complete").start();
  for (const batch of batches) {
    points.addData(...batch);
    await scores.processAllAvailable();
    await perCluster.processAllAvailable();
  }
  const result = {
    scores: (await session.table("scores").collect()).sort((a, b) => Number(a.id) - Number(b.id)),
    perCluster: (await session.table("per_cluster").collect()).sort((a, b) => Number(a.cluster) - Number(b.cluster)),
  };
  await scores.stop();
  await perCluster.stop();
  return result;
}

export async function main(workers = 2): Promise<Awaited<ReturnType<typeof score>> & { centres: [number, number][] }> {
  const session = new Session({ workers });
  try {
    const centres = await train(session, samplePoints(300, 7), 3);
    const online = [samplePoints(6, 11, 1000), samplePoints(6, 13, 2000)];
    return { centres, ...(await score(session, centres, online)) };
  } finally {
    await session.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const { centres, scores, perCluster } = await main();
  console.log("trained centres:", centres.map(([x, y]) => `(${x.toFixed(2)}, ${y.toFixed(2)})`).join(" "));
  console.table(scores);
  console.table(perCluster);
}
