import type { Batch } from "../batch/batch.js";
import { batchToRows } from "../batch/rows.js";
import type { DType, Header } from "../types/dtype.js";

/** Spark's text form of a timestamp: `yyyy-MM-dd HH:mm:ss[.SSS]` in UTC. */
export function formatTimestamp(d: Date): string {
  const iso = d.toISOString();
  const base = `${iso.slice(0, 10)} ${iso.slice(11, 19)}`;
  return iso.slice(20, 23) === "000" ? base : `${base}.${iso.slice(20, 23)}`;
}

export function formatValue(v: unknown, type: DType): string {
  if (v === null || v === undefined) return "NULL";
  switch (type) {
    case "timestamp":
      return formatTimestamp(v as Date);
    case "window": {
      const w = v as { start: Date; end: Date };
      return `{${formatTimestamp(w.start)}, ${formatTimestamp(w.end)}}`;
    }
    case "binary":
      return formatBytes(v as Uint8Array);
    case "headers":
      // As Spark's show() prints array<struct<key, value: binary>>: [{k, [76 31]}, {k2, NULL}].
      return `[${(v as Header[]).map((h) => `{${h.key}, ${h.value === null ? "NULL" : formatBytes(h.value)}}`).join(", ")}]`;
    case "string":
    case "float64":
    case "int32":
    case "int64":
    case "boolean":
      return String(v);
  }
}

/** Bytes as Spark's `show()` prints binary: upper-case hex pairs in brackets, `[48 65 6C]`. */
export function formatBytes(bytes: Uint8Array): string {
  let out = "";
  for (let i = 0; i < bytes.length; i++) out += (i > 0 ? " " : "") + (bytes[i]! < 16 ? "0" : "") + bytes[i]!.toString(16).toUpperCase();
  return `[${out}]`;
}

/**
 * Renders a batch as Spark's `show()` does: a boxed table, cells cut to 20 characters when
 * `truncate` is on, and a "only showing top N rows" line when rows were left out.
 */
export function formatTable(batch: Batch, numRows = 20, truncate = true): string {
  const shown = Math.min(numRows, batch.numRows);
  // Exact digits for int64 beyond ±(2^53 - 1), as Spark shows its longs.
  const rows = batchToRows(batch, { bigintBeyondExact: true }).slice(0, shown);
  const header = batch.fields.map((f) => f.name);
  const cells = rows.map((r) =>
    batch.fields.map((f) => {
      const text = formatValue(r[f.name], f.type);
      return truncate && text.length > 20 ? `${text.slice(0, 17)}...` : text;
    }),
  );
  const widths = header.map((h, i) => Math.max(3, h.length, ...cells.map((c) => c[i]!.length)));
  const line = `+${widths.map((w) => "-".repeat(w)).join("+")}+`;
  // As Spark: cells are right-aligned when truncating, left-aligned otherwise.
  const pad = (v: string, w: number) => (truncate ? v.padStart(w) : v.padEnd(w));
  const fmt = (vals: string[]) => `|${vals.map((v, i) => pad(v, widths[i]!)).join("|")}|`;
  const out = [line, fmt(header), line, ...cells.map(fmt), line];
  if (batch.numRows > shown) out.push(`only showing top ${shown} row${shown === 1 ? "" : "s"}`);
  return `${out.join("\n")}\n`;
}
