import type { ColumnAccumulators } from "../column-accumulators.js";
import type { RecordProblem } from "../record-problem.js";
import { schemaProblem } from "../record-problem.js";
import * as P from "./avro-plan.js";
import { dateRangeProblem, faultProblem, nullProblem, timestampRangeProblem, trailingBytesProblem, unknownSymbolProblem } from "./avro-problems.js";
import { FAULT, FAULT_ENUM_INDEX, FAULT_UNION_INDEX, type AvroReader } from "./avro-reader.js";

/**
 * Runs a decode plan (avro-plan.ts) over one record, `reader.src[start, end)`, writing row `row`
 * of the columns. One switch per value over op codes compiled beforehand; values go straight into
 * the accumulators' typed arrays (int64 and timestamps as word pairs), strings and bytes are
 * copied as bytes. A bad record throws a RecordProblem: the caller's bad-record mode decides.
 * Strings are copied as they are, without checking that they are valid UTF-8, as the JSON
 * decoders do.
 */

const TWO_32 = 4294967296;
const MAX_TIMESTAMP_MS = 8.64e15;
const MAX_DATE_DAYS = 100_000_000;
const MS_PER_DAY = 86_400_000;

export function decodeRecord(plan: P.DecodePlan, r: AvroReader, columns: ColumnAccumulators, start: number, end: number, row: number): void {
  r.pos = start;
  r.end = end;
  const ops = plan.ops;
  const targets = plan.columns;
  const args = plan.args;
  const twoTo32 = TWO_32;
  // The accumulators' per-field array lists never change (only their elements grow): read them once.
  const valid = columns.valid;
  const int32s = columns.int32s;
  const float64s = columns.float64s;
  const words64 = columns.words;
  const bools = columns.bools;
  let k = 0;
  try {
    for (; k < ops.length; k++) {
      let op = ops[k]!;
      let arg = args[k]!;
      const f = targets[k]!;
      if (op === P.OP_UNION) {
        const table = plan.unions[arg]!;
        const index = r.int();
        if (index < 0 || index >= table.ops.length) r.fail(FAULT_UNION_INDEX, index, table.ops.length);
        op = table.ops[index]!;
        arg = table.args[index]!;
      }
      switch (op) {
        case P.OP_SKIP_VARINT:
          r.skipVarint();
          break;
        case P.OP_SKIP_FIXED:
          r.skip(arg);
          break;
        case P.OP_SKIP_BYTES:
          r.skip(r.length());
          break;
        case P.OP_SKIP_WITH:
          plan.skippers[arg]!(r);
          break;
        case P.OP_INT_INT32:
          int32s[f]![row] = r.int();
          valid[f]![row] = 1;
          break;
        case P.OP_INT_INT64: {
          const v = r.int();
          const words = words64[f]!;
          words[2 * row] = v;
          words[2 * row + 1] = v >> 31;
          valid[f]![row] = 1;
          break;
        }
        case P.OP_INT_FLOAT64:
          float64s[f]![row] = r.int();
          valid[f]![row] = 1;
          break;
        case P.OP_DATE_TIMESTAMP: {
          const days = r.int();
          if (days > MAX_DATE_DAYS || days < -MAX_DATE_DAYS) throw dateRangeProblem(plan.names[k]!, days);
          setMillis(words64[f]!, row, days * MS_PER_DAY);
          valid[f]![row] = 1;
          break;
        }
        case P.OP_LONG_INT64: {
          r.longWords();
          const words = words64[f]!;
          words[2 * row] = r.lo;
          words[2 * row + 1] = r.hi;
          valid[f]![row] = 1;
          break;
        }
        case P.OP_LONG_FLOAT64:
          float64s[f]![row] = r.long();
          valid[f]![row] = 1;
          break;
        case P.OP_LONG_TIMESTAMP: {
          r.longWords();
          const ms = arg === 1 ? r.hi * twoTo32 + (r.lo >>> 0) : floorDivWords(r.lo, r.hi, arg);
          if (!(ms <= MAX_TIMESTAMP_MS && ms >= -MAX_TIMESTAMP_MS)) throw timestampRangeProblem(plan.names[k]!, ms);
          setMillis(words64[f]!, row, ms);
          valid[f]![row] = 1;
          break;
        }
        case P.OP_FLOAT_FLOAT64:
          float64s[f]![row] = r.float();
          valid[f]![row] = 1;
          break;
        case P.OP_DOUBLE_FLOAT64:
          float64s[f]![row] = r.double();
          valid[f]![row] = 1;
          break;
        case P.OP_BOOLEAN:
          bools[f]![row] = r.boolean();
          valid[f]![row] = 1;
          break;
        case P.OP_BYTES: {
          const length = r.length();
          columns.writeRawString(f, row, r.src, r.pos, r.pos + length);
          r.pos += length;
          break;
        }
        case P.OP_FIXED:
          r.need(arg);
          columns.writeRawString(f, row, r.src, r.pos, r.pos + arg);
          r.pos += arg;
          break;
        case P.OP_ENUM: {
          const table = plan.enums[arg]!;
          const index = r.int();
          if (index < 0 || index >= table.starts.length) r.fail(FAULT_ENUM_INDEX, index, table.starts.length);
          const from = table.starts[index]!;
          if (from < 0) throw unknownSymbolProblem(plan.names[k]!, table.symbols[index]!, table.readerEnum);
          columns.writeRawString(f, row, table.bytes, from, table.ends[index]!);
          break;
        }
        case P.OP_NULL:
          break;
        case P.OP_NULL_REFUSED:
          throw nullProblem(plan.names[k]!);
        case P.OP_BRANCH_REFUSED:
          throw branchRefused(plan, arg);
        case P.OP_CONST_INT32:
          int32s[f]![row] = plan.constNumbers[arg]!;
          valid[f]![row] = 1;
          break;
        case P.OP_CONST_FLOAT64:
          float64s[f]![row] = plan.constNumbers[arg]!;
          valid[f]![row] = 1;
          break;
        case P.OP_CONST_BOOLEAN:
          bools[f]![row] = plan.constNumbers[arg]!;
          valid[f]![row] = 1;
          break;
        case P.OP_CONST_WORDS: {
          const words = words64[f]!;
          words[2 * row] = plan.constWords[2 * arg]!;
          words[2 * row + 1] = plan.constWords[2 * arg + 1]!;
          valid[f]![row] = 1;
          break;
        }
        case P.OP_CONST_BYTES: {
          const bytes = plan.constBytes[arg]!;
          columns.writeRawString(f, row, bytes, 0, bytes.length);
          break;
        }
      }
    }
  } catch (e) {
    if (e === FAULT) throw faultProblem(r, plan.names[k]!);
    throw e;
  }
  if (r.pos !== end) throw trailingBytesProblem(end - r.pos);
}

function branchRefused(plan: P.DecodePlan, refusal: number): RecordProblem {
  return schemaProblem(plan.refusals[refusal]!);
}

/** Writes epoch milliseconds (an integer within ±8.64e15) as the int64 words of row `row`. */
function setMillis(words: Int32Array, row: number, ms: number): void {
  const hi = Math.floor(ms / TWO_32);
  words[2 * row] = ms - hi * TWO_32; // 0 .. 2^32 - 1, stored as the word's bits
  words[2 * row + 1] = hi;
}

/**
 * floor((hi * 2^32 + lo) / divisor) for a divisor below 2^20, exactly: with 2^32 = q * divisor +
 * rem, the value is hi * q * divisor + (hi * rem + lo), and hi * rem + lo stays below 2^52, where
 * doubles are exact. The result is exact wherever it can be a Sluice timestamp.
 */
function floorDivWords(lo: number, hi: number, divisor: number): number {
  const q = Math.floor(TWO_32 / divisor);
  const rest = hi * (TWO_32 - q * divisor) + (lo >>> 0);
  let m = rest % divisor;
  if (m < 0) m += divisor;
  return hi * q + (rest - m) / divisor;
}
