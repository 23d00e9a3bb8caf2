import { parseDuration } from "../config/duration.js";
import type { Expr, ExprOf } from "./ast.js";

/**
 * The event-time window expressions of `window(...)` and `session_window(...)`, checked as Spark
 * checks them; shared by the DataFrame functions and SQL so both read durations the same way.
 */
export function windowExpr(time: Expr, windowDuration: string | number, slideDuration?: string | number, startTime?: string | number): ExprOf<"window"> {
  const sizeMs = parseDuration(windowDuration, "windowDuration");
  const slideMs = slideDuration === undefined ? sizeMs : parseDuration(slideDuration, "slideDuration");
  const startMs = startTime === undefined ? 0 : parseDuration(startTime, "startTime");
  if (slideMs > sizeMs) {
    throw new RangeError(`window(): slideDuration (${slideMs} ms) must be less than or equal to windowDuration (${sizeMs} ms)`);
  }
  if (Math.abs(startMs) >= slideMs) {
    throw new RangeError(`window(): startTime (${startMs} ms) must be less than slideDuration (${slideMs} ms)`);
  }
  return { kind: "window", time, sizeMs, slideMs, startMs };
}

export function sessionWindowExpr(time: Expr, gapDuration: string | number): ExprOf<"sessionWindow"> {
  return { kind: "sessionWindow", time, gapMs: parseDuration(gapDuration, "gapDuration") };
}
