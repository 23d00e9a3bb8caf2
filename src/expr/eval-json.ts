import type * as arrow from "apache-arrow";
import { int64Text, requireExactIntegers } from "../batch/numeric-columns.js";
import { InternalError } from "../errors/errors.js";
import { base64Texts } from "../kernels/binary.js";
import { andValidity } from "../kernels/bits.js";
import type { StringsView } from "../kernels/columns.js";
import { copyBytes, viewOf } from "../kernels/copy-bytes.js";
import type { DType } from "../types/dtype.js";
import { assertNever } from "./ast.js";
import { asBool, asNum, asStr, asWin, type StrVec, type Vec, vecOf, type WinVec } from "./eval-vec.js";
import { headersJson } from "./headers-json.js";
import {
  COMMA,
  doubleTexts,
  escapedStrings,
  FALSE,
  formatEach,
  formatRows,
  FOUR_DIGIT_YEARS_FROM,
  FOUR_DIGIT_YEARS_TO,
  integerWidth,
  jsonKey,
  jsonTimestampText,
  LBRACE,
  QUOTE,
  RBRACE,
  TIME_WIDTH,
  TimestampWriter,
  TRUE,
  writeInteger,
} from "./json-text.js";

/**
 * `to_json`: one JSON object per row, written as Spark writes it (Jackson with Spark's defaults):
 * keys in field order; null fields left out (`ignoreNullFields`), so a struct with no non-null
 * field is `{}`; windows and nested structs as nested objects (`{"start":...,"end":...}`); each
 * value's text as `json-text.ts` describes (escaped strings, plain integers, Java doubles with NaN
 * and the infinities quoted, true / false, timestamps as "2026-01-01T12:00:00.000Z", binary as
 * base64 text).
 *
 * The text is built column at a time, straight into the output buffer: a first pass adds up each
 * row's length (field by field), a prefix sum gives the offsets, and a second pass writes each
 * field's key and value into every row at that row's cursor. Only doubles, and integers or times
 * outside the fast paths' range, are formatted through a per-column piece buffer first.
 */

/**
 * A JSON value tree for one batch: objects (structs, windows), leaf columns, and columns already
 * rendered as JSON text (Kafka headers, an array of objects: headers-json.ts).
 */
export type JsonNode = JsonObject | { readonly kind: "leaf"; readonly type: DType; readonly vec: Vec } | { readonly kind: "json"; readonly text: StrVec };

/** The JSON node of a column as a batch holds it. */
export function columnNode(data: arrow.Data, type: DType): JsonNode {
  return type === "headers" ? { kind: "json", text: headersJson(data, data.length) } : { kind: "leaf", type, vec: vecOf(data, type) };
}

/** An object: a struct (never null) or a window (null where the window is). */
export interface JsonObject {
  readonly kind: "object";
  readonly members: readonly JsonMember[];
  readonly valid: Uint8Array | null;
}

export interface JsonMember {
  /** The member's key as written: `"name":` with the name escaped. */
  readonly key: Uint8Array;
  readonly node: JsonNode;
}

const START_KEY = jsonKey("start");
const END_KEY = jsonKey("end");

/** A window as the object `{"start":...,"end":...}`, null where the window is null. */
export function windowObject(w: WinVec): JsonObject {
  const time = (values: Float64Array): JsonNode => ({ kind: "leaf", type: "timestamp", vec: { kind: "num", values, valid: null } });
  return { kind: "object", members: [{ key: START_KEY, node: time(w.start) }, { key: END_KEY, node: time(w.end) }], valid: w.valid };
}

/** The JSON text of each row of `root` (an object); rows where the object is null are null. */
export function toJsonText(root: JsonObject, n: number): StrVec {
  const tree = prepareObject(root, n);
  const active = root.valid;
  const lengths = measureObject(tree, active, n);
  const offsets = new Int32Array(n + 1);
  let total = 0;
  for (let i = 0; i < n; i++) {
    if (active === null || active[i]) total += lengths[i];
    offsets[i + 1] = total;
  }
  if (total > 0x7fffffff) throw new RangeError(`to_json(): the batch's JSON text is ${total} bytes, more than a string column holds (2 GiB); use smaller batches`);
  const out = new Uint8Array(total);
  const cursor = offsets.slice(0, n);
  writeObject(tree, active, n, out, cursor);
  return { kind: "str", strings: { offsets, bytes: out, indices: null }, valid: active };
}

// ---------------------------------------------------------------------------------------------
// Preparation: each leaf becomes one of a few shapes the two passes know how to size and write.

type Prepared =
  | { readonly k: "object"; readonly members: readonly { readonly key: Uint8Array; readonly node: Prepared }[]; readonly valid: Uint8Array | null }
  | { readonly k: "int"; readonly values: Float64Array; readonly valid: Uint8Array | null }
  | { readonly k: "bool"; readonly values: Uint8Array; readonly valid: Uint8Array | null }
  | { readonly k: "time"; readonly values: Float64Array; readonly valid: Uint8Array | null }
  /** Ready-made text per row (`quote`: wrap it in quotes), e.g. escaped strings or formatted doubles. */
  | { readonly k: "text"; readonly view: StringsView; readonly quote: boolean; readonly valid: Uint8Array | null };

type PreparedObject = Extract<Prepared, { k: "object" }>;

function prepareObject(node: JsonObject, n: number): PreparedObject {
  return { k: "object", members: node.members.map((m) => ({ key: m.key, node: prepare(m.node, n) })), valid: node.valid };
}

function prepare(node: JsonNode, n: number): Prepared {
  if (node.kind === "object") return prepareObject(node, n);
  if (node.kind === "json") return { k: "text", view: node.text.strings, quote: false, valid: node.text.valid };
  const { vec, type } = node;
  switch (type) {
    case "int32":
    case "int64": {
      if (vec.kind === "num" && vec.words !== undefined) {
        // Exact int64 words (values beyond ±(2^53 - 1)): every digit from the words.
        const words = vec.words;
        return { k: "text", view: formatRows(vec.valid, n, (i) => int64Text(words[2 * i], words[2 * i + 1])), quote: false, valid: vec.valid };
      }
      const v = asNum(vec);
      // Read values are exact; a computed int64 beyond ±(2^53 - 1) may be rounded, which raises.
      requireExactIntegers(v.values, v.valid);
      return { k: "int", values: v.values, valid: v.valid };
    }
    case "float64": {
      const v = asNum(vec);
      return { k: "text", view: doubleTexts(v.values, v.valid, n), quote: false, valid: v.valid };
    }
    case "boolean": {
      const v = asBool(vec);
      return { k: "bool", values: v.values, valid: v.valid };
    }
    case "timestamp": {
      const v = asNum(vec);
      return allWithin(v.values, v.valid, n, FOUR_DIGIT_YEARS_FROM, FOUR_DIGIT_YEARS_TO)
        ? { k: "time", values: v.values, valid: v.valid }
        : { k: "text", view: formatEach(v.values, v.valid, n, jsonTimestampText), quote: true, valid: v.valid };
    }
    case "string": {
      const v = asStr(vec);
      return { k: "text", view: escapedStrings(v.strings, n), quote: true, valid: v.valid };
    }
    case "binary": {
      // Base64 as Jackson writes bytes (Spark's JSON writer): the alphabet needs no escapes.
      const v = asStr(vec);
      return { k: "text", view: { ...base64Texts(v.strings, n), indices: v.strings.indices }, quote: true, valid: v.valid };
    }
    case "window":
      return prepareObject(windowObject(asWin(vec)), n);
    case "headers":
      throw new InternalError("a headers column reaches JSON as text already (columnNode)");
    default:
      return assertNever(type, "type");
  }
}

/** True when every valid value lies in [from, to). */
function allWithin(values: Float64Array, valid: Uint8Array | null, n: number, from: number, to: number): boolean {
  for (let i = 0; i < n; i++) {
    const x = values[i];
    if (!(x >= from && x < to) && (valid === null || valid[i])) return false;
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// The two passes.

/** Each row's text length of an object, for the rows in `active` (others are left unspecified). */
function measureObject(obj: PreparedObject, active: Uint8Array | null, n: number): Int32Array {
  const lengths = new Int32Array(n).fill(2);
  const members = new Int32Array(n);
  for (const { key, node } of obj.members) {
    const mask = andValidity(active, node.valid);
    const k = key.length;
    switch (node.k) {
      case "object": {
        const inner = measureObject(node, mask, n);
        for (let i = 0; i < n; i++) {
          if (mask !== null && !mask[i]) continue;
          lengths[i] += k + inner[i];
          members[i]++;
        }
        break;
      }
      case "int": {
        const v = node.values;
        for (let i = 0; i < n; i++) {
          if (mask !== null && !mask[i]) continue;
          lengths[i] += k + integerWidth(v[i]);
          members[i]++;
        }
        break;
      }
      case "bool": {
        const v = node.values;
        for (let i = 0; i < n; i++) {
          if (mask !== null && !mask[i]) continue;
          lengths[i] += k + (v[i] ? 4 : 5);
          members[i]++;
        }
        break;
      }
      case "time":
        for (let i = 0; i < n; i++) {
          if (mask !== null && !mask[i]) continue;
          lengths[i] += k + TIME_WIDTH;
          members[i]++;
        }
        break;
      case "text": {
        const { offsets, indices } = node.view;
        const extra = k + (node.quote ? 2 : 0);
        for (let i = 0; i < n; i++) {
          if (mask !== null && !mask[i]) continue;
          const e = indices === null ? i : indices[i];
          lengths[i] += extra + offsets[e + 1] - offsets[e];
          members[i]++;
        }
        break;
      }
      default:
        assertNever(node, "JSON node");
    }
  }
  // Commas between members.
  for (let i = 0; i < n; i++) if (members[i] > 1) lengths[i] += members[i] - 1;
  return lengths;
}

/**
 * Starts a member at `p`: a comma unless it is the object's first member (the byte before is the
 * object's `{`, which no value ends with), then the key. Returns the position after the key.
 */
function writeKey(out: Uint8Array, p: number, key: Uint8Array): number {
  if (out[p - 1] !== LBRACE) out[p++] = COMMA;
  for (let k = 0; k < key.length; k++) out[p + k] = key[k];
  return p + key.length;
}

function writeObject(obj: PreparedObject, active: Uint8Array | null, n: number, out: Uint8Array, cursor: Int32Array): void {
  for (let i = 0; i < n; i++) if (active === null || active[i]) out[cursor[i]++] = LBRACE;
  for (const { key, node } of obj.members) {
    const mask = andValidity(active, node.valid);
    switch (node.k) {
      case "object":
        for (let i = 0; i < n; i++) if (mask === null || mask[i]) cursor[i] = writeKey(out, cursor[i], key);
        writeObject(node, mask, n, out, cursor);
        break;
      case "int": {
        const v = node.values;
        for (let i = 0; i < n; i++) {
          if (mask !== null && !mask[i]) continue;
          cursor[i] = writeInteger(out, writeKey(out, cursor[i], key), v[i]);
        }
        break;
      }
      case "bool": {
        const v = node.values;
        for (let i = 0; i < n; i++) {
          if (mask !== null && !mask[i]) continue;
          const p = writeKey(out, cursor[i], key);
          const word = v[i] ? TRUE : FALSE;
          for (let k = 0; k < word.length; k++) out[p + k] = word[k];
          cursor[i] = p + word.length;
        }
        break;
      }
      case "time": {
        const v = node.values;
        const times = new TimestampWriter();
        for (let i = 0; i < n; i++) {
          if (mask !== null && !mask[i]) continue;
          cursor[i] = times.write(out, writeKey(out, cursor[i], key), v[i]);
        }
        break;
      }
      case "text": {
        const { offsets, bytes, indices } = node.view;
        const quote = node.quote;
        const bytesView = viewOf(bytes);
        const outView = viewOf(out);
        for (let i = 0; i < n; i++) {
          if (mask !== null && !mask[i]) continue;
          let p = writeKey(out, cursor[i], key);
          const e = indices === null ? i : indices[i];
          const from = offsets[e];
          const len = offsets[e + 1] - from;
          if (quote) out[p++] = QUOTE;
          copyBytes(bytes, bytesView, from, out, outView, p, len);
          p += len;
          if (quote) out[p++] = QUOTE;
          cursor[i] = p;
        }
        break;
      }
      default:
        assertNever(node, "JSON node");
    }
  }
  for (let i = 0; i < n; i++) if (active === null || active[i]) out[cursor[i]++] = RBRACE;
}
