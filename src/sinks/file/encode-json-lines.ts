import type { Batch } from "../../batch/batch.js";
import { columnNode, type JsonMember, toJsonText } from "../../expr/eval-json.js";
import { jsonKey } from "../../expr/json-text.js";
import { copyBytes, viewOf } from "../../kernels/copy-bytes.js";

const NEWLINE = 0x0a;

/**
 * A batch as JSON lines, as Spark's JSON data source writes them: one object per row with the
 * columns in order, null fields left out, then `\n`. The objects come from the same column-at-a-time
 * writer as `to_json` (Jackson's text for every type, timestamps as "2026-01-01T12:00:00.000Z",
 * windows as {"start":...,"end":...}, binary as base64, Kafka headers as [{"key":...,"value":...}]);
 * this only adds the line breaks.
 */
export function encodeJsonLines(batch: Batch): Uint8Array {
  const n = batch.numRows;
  const members = batch.fields.map((f, c): JsonMember => ({ key: jsonKey(f.name), node: columnNode(batch.columns[c]!, f.type) }));
  const { offsets, bytes } = toJsonText({ kind: "object", members, valid: null }, n).strings;
  const out = new Uint8Array(bytes.length + n);
  const bytesView = viewOf(bytes);
  const outView = viewOf(out);
  // Rows are contiguous in `bytes`: copy each and follow it with a newline.
  for (let i = 0; i < n; i++) {
    const from = offsets[i]!;
    const to = offsets[i + 1]!;
    copyBytes(bytes, bytesView, from, out, outView, from + i, to - from);
    out[to + i] = NEWLINE;
  }
  return out;
}
