/**
 * Rows in a stable order, for answers whose order no engine promises (a table after a batch, a query
 * without ORDER BY): by each row's JSON, binary values as their bytes.
 */
export function sorted<R extends Record<string, unknown>>(rows: readonly R[]): R[] {
  const key = (r: R) => JSON.stringify(r, (_, v: unknown) => (v instanceof Uint8Array ? Array.from(v) : typeof v === "bigint" ? String(v) : v));
  return [...rows].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}
