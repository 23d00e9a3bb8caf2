/**
 * Spark's total order on doubles: NaN equals NaN and is larger than every other number (including
 * +Infinity); -0.0 equals 0.0. Returns negative, zero or positive.
 */
export function compareDoubles(x: number, y: number): number {
  if (x < y) return -1;
  if (x > y) return 1;
  if (x === y) return 0;
  const xNaN = x !== x;
  return xNaN === (y !== y) ? 0 : xNaN ? 1 : -1;
}
