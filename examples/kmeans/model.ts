import type * as arrow from "apache-arrow";

/**
 * The model's code, which every worker imports: the nearest of the k-means centres for each point.
 * It is a vector UDF: called once per batch with the x and y columns as Arrow vectors and the
 * centres as args (plain JSON data, bound when the UDF is made), it returns the cluster of every row
 * as one Int32Array.
 */
export interface Centres {
  readonly centres: readonly (readonly [number, number])[];
}

export function nearestCentre(x: arrow.Vector, y: arrow.Vector, { centres }: Centres): Int32Array {
  const xs = x.toArray() as Float64Array;
  const ys = y.toArray() as Float64Array;
  const cx = Float64Array.from(centres, (c) => c[0]);
  const cy = Float64Array.from(centres, (c) => c[1]);
  const out = new Int32Array(xs.length);
  for (let i = 0; i < xs.length; i++) {
    let best = 0;
    let bestDistance = Number.POSITIVE_INFINITY;
    for (let k = 0; k < cx.length; k++) {
      const dx = xs[i]! - cx[k]!;
      const dy = ys[i]! - cy[k]!;
      const d = dx * dx + dy * dy;
      if (d < bestDistance) {
        bestDistance = d;
        best = k;
      }
    }
    out[i] = best;
  }
  return out;
}
