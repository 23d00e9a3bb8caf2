import { int64WordsOfProducts, MAX_EXACT_INTEGER } from "../batch/numeric-columns.js";
import { floorMod, hourOf, type TruncUnit, truncTimestamp } from "../kernels/temporal.js";
import { int64Vec, type NumVec, type WinVec } from "./eval-vec.js";

/** Time functions over epoch-millisecond vectors, in UTC. */

/** date_trunc(unit, ts); `unit === null` (a unit Spark does not know) gives null, as Spark. */
export function dateTrunc(unit: TruncUnit | null, ts: NumVec, n: number): NumVec {
  const out = new Float64Array(n);
  if (unit === null) return { kind: "num", values: out, valid: new Uint8Array(n) };
  const t = ts.values;
  for (let i = 0; i < n; i++) out[i] = truncTimestamp(unit, t[i]);
  return { kind: "num", values: out, valid: ts.valid };
}

/** hour(ts): 0-23 in UTC. */
export function hour(ts: NumVec, n: number): NumVec {
  const out = new Float64Array(n);
  const t = ts.values;
  for (let i = 0; i < n; i++) out[i] = hourOf(t[i]);
  return { kind: "num", values: out, valid: ts.valid };
}

/**
 * The tumbling window holding each time: start = t - ((t - startMs) mod size), with a mod that is
 * never negative so times before the epoch (or before startMs) fall into the right window.
 * A null time gives a null window.
 */
export function tumblingWindow(time: NumVec, sizeMs: number, startMs: number, n: number): WinVec {
  const start = new Float64Array(n);
  const end = new Float64Array(n);
  const t = time.values;
  for (let i = 0; i < n; i++) {
    const s = t[i] - floorMod(t[i] - startMs, sizeMs);
    start[i] = s;
    end[i] = s + sizeMs;
  }
  return { kind: "win", start, end, valid: time.valid };
}

/**
 * unix_seconds / unix_millis / unix_micros: a timestamp as a count since the epoch. Seconds are
 * floored, as Spark's `Math.floorDiv` (-1 ms is -1 s); milliseconds are the values themselves (a
 * new vector over the same values: the result is int64, not a timestamp).
 */
export function epochUnits(ts: NumVec, unit: "seconds" | "millis" | "micros", n: number): NumVec {
  if (unit === "millis") return { kind: "num", values: ts.values, valid: ts.valid };
  const out = new Float64Array(n);
  const t = ts.values;
  if (unit === "seconds") for (let i = 0; i < n; i++) out[i] = Math.floor(t[i] / 1000);
  else {
    let beyond = false;
    for (let i = 0; i < n; i++) {
      out[i] = t[i] * 1000;
      if (Math.abs(out[i]) > MAX_EXACT_INTEGER) beyond = true;
    }
    // Microseconds after 2255 (or before 1685) pass 2^53: exact words instead of rounded doubles.
    if (beyond) return int64Vec(int64WordsOfProducts(t.subarray(0, n), 1000), ts.valid);
  }
  return { kind: "num", values: out, valid: ts.valid };
}

/**
 * timestamp_seconds(x): seconds since the epoch as a timestamp, as Spark's SecondsToTimestamp.
 * Spark keeps microseconds, truncating toward zero (a double's micros are `(x * 1e6).toLong`);
 * Sluice keeps milliseconds and floors those microseconds, as every coarser unit is reached
 * (README, "Numbers and times"). NaN and the infinities give null.
 */
export function secondsToTimestamp(x: NumVec, n: number): NumVec {
  const out = new Float64Array(n);
  const v = x.values;
  let valid = x.valid;
  for (let i = 0; i < n; i++) {
    const s = v[i];
    if (Number.isFinite(s)) out[i] = Math.floor(Math.trunc(s * 1e6) / 1000);
    else {
      // Vectors are immutable: the first non-finite value copies the validity before marking it.
      if (valid === x.valid) valid = x.valid === null ? new Uint8Array(n).fill(1) : x.valid.slice();
      valid![i] = 0;
    }
  }
  return { kind: "num", values: out, valid };
}

/**
 * window_time(w): the last time inside the window. Spark gives `end - 1 microsecond`, its finest
 * unit, so that the time falls inside the half-open [start, end) and a window over it (a second,
 * chained aggregation) puts it back into the window that produced it. Sluice's finest unit is the
 * millisecond, so it gives `end - 1 ms`, which keeps both properties for millisecond times.
 */
export function windowTime(w: WinVec, n: number): NumVec {
  const out = new Float64Array(n);
  const end = w.end;
  for (let i = 0; i < n; i++) out[i] = end[i] - 1;
  return { kind: "num", values: out, valid: w.valid };
}
