import { MAX_TIMESTAMP_MS, setInt64Words } from "../../batch/numeric-columns.js";
import { InternalError } from "../../errors/errors.js";
import type { ColumnAccumulators } from "../column-accumulators.js";
import { schemaProblem } from "../record-problem.js";
import { describeField } from "./proto-descriptor.js";
import * as plans from "./reader-plan.js";
import type { ReaderPlan } from "./reader-plan.js";
import { isValidUtf8 } from "./utf8.js";
import { IN_TAG, WireCursor } from "./wire-cursor.js";
import { WIRE_FIXED32, WIRE_VARINT } from "./wire-types.js";

/**
 * Decodes one Protobuf message straight into column accumulators, guided by a ReaderPlan: each
 * field's tag leads to its slot, whose value is read from the wire into the typed arrays of its
 * column; other fields (unknown ones, nested messages, repeated and packed fields not read) are
 * skipped by their wire type, and still checked to be well formed. Throws a `RecordProblem` when
 * the bytes are not a well-formed message or do not fit the reader's message; the caller applies
 * the bad-record mode (protobuf-values.ts).
 *
 * Varints are read as two 32-bit words, so no BigInt is made: int32 fields take the low word (as
 * protobuf-java does), int64 fields both, written as the word pairs int64 columns hold. Later
 * occurrences of a field win, as in every Protobuf parser; two occurrences of a message field
 * (a Timestamp) merge.
 */

const MS_PER_SECOND = 1000;
const NANOS_PER_MICRO = 1000;
const MICROS_PER_MS = 1000;
const TWO_32 = 4294967296;
/** google.protobuf.Timestamp's field numbers. */
const SECONDS = 1;
const NANOS = 2;

export class ProtobufRecordDecoder extends WireCursor {
  private serial = 0;
  /** Per slot: the serial of the last record in which the field appeared. */
  private readonly seen: Int32Array;
  /** Per slot: a Timestamp's seconds and nanos so far in this record, for merging occurrences. */
  private readonly seconds: Float64Array;
  private readonly nanos: Float64Array;

  constructor(
    private readonly plan: ReaderPlan,
    private readonly columns: ColumnAccumulators,
  ) {
    super((number: number) => plan.describe(number));
    const slots = plan.fields.length;
    this.seen = new Int32Array(slots);
    this.seconds = new Float64Array(slots);
    this.nanos = new Float64Array(slots);
  }

  /**
   * Decodes the message `src[start, end)` into `row`. The position lives in a local while the
   * common cases (one-byte tags, lengths and numbers; strings and int32s) are read inline, and in
   * `this.pos` around calls to the general readers.
   */
  decode(row: number, start: number, end: number): void {
    const plan = this.plan;
    const src = this.src;
    const dense = plan.dense;
    const seen = this.seen;
    const columns = this.columns;
    const valid = columns.valid;
    const dropDefault = plan.dropDefault;
    const hasOneofs = plan.hasOneofs;
    // Module constants are read through locals: a module binding is checked on every read in a loop.
    const INT32 = plans.OP_INT32;
    const SINT32 = plans.OP_SINT32;
    const STRING = plans.OP_STRING;
    const BYTES = plans.OP_BYTES;
    const serial = ++this.serial;
    this.end = end;
    this.recordStart = start;
    let p = start;
    let v = 0;
    while (p < end) {
      let tag = src[p]!;
      if (tag < 0x80) p++;
      else {
        this.pos = p;
        this.fieldNumber = IN_TAG;
        tag = this.varint();
        p = this.pos;
      }
      const number = tag >>> 3;
      const wire = tag & 7;
      // `this.pos` and `this.fieldNumber` are set for the general readers (and their messages) only.
      if (number === 0) {
        this.pos = p;
        throw this.tagProblem("field number 0, which no field has");
      }
      const slot = number < dense.length ? dense[number]! : plan.sparseSlot(number);
      if (slot < 0) {
        this.skipAt(p, number, wire);
        p = this.pos;
        continue;
      }
      const op = plan.op[slot]!;
      if (wire !== plan.wire[slot]) {
        // A tracked field of another wire type is, to protobuf-java, an unknown field.
        if (op === plans.OP_TRACK || wire > WIRE_FIXED32) {
          this.skipAt(p, number, wire);
          p = this.pos;
          continue;
        }
        // protobuf-java would keep it as an unknown field, and the column would read null: a field of a
        // read number in another wire type means the writer's schema differs, which is flagged instead.
        throw schemaProblem(`${plan.describe(number)} is wire type ${wire}, expected ${plan.wire[slot]}`);
      }
      const before = seen[slot]!;
      seen[slot] = serial;
      const column = plan.column[slot]!;
      if (op === STRING || op === BYTES) {
        let length = p < end ? src[p]! : 0x80;
        if (length < 0x80 && p + 1 + length <= end) p++;
        else {
          this.pos = p;
          this.fieldNumber = number;
          length = this.length();
          p = this.pos;
        }
        const from = p;
        p += length;
        if (plan.validateUtf8[slot] === 1 && !isValidUtf8(src, this.view, from, p)) throw schemaProblem(`${plan.describe(number)} is not valid UTF-8`);
        columns.writeRawString(column, row, src, from, p);
        if (length === 0 && dropDefault[slot] === 1) valid[column]![row] = 0;
      } else if ((op === INT32 || op === SINT32) && (v = this.shortVarint(p, end)) >= 0) {
        // A varint of up to 4 bytes (below 2^28) read inline; `v` is then never negative.
        p = this.pos;
        if (op === SINT32) v = (v >>> 1) ^ -(v & 1);
        columns.int32s[column]![row] = v;
        valid[column]![row] = v === 0 && dropDefault[slot] === 1 ? 0 : 1;
      } else {
        this.pos = p;
        this.fieldNumber = number;
        const changed = this.value(op, slot, column, row, before === serial);
        p = this.pos;
        if (!changed) {
          seen[slot] = before;
          continue;
        }
      }
      if (hasOneofs) {
        const peers = plan.oneofPeers[slot];
        if (peers !== null) for (let i = 0; i < peers.length; i++) valid[peers[i]!]![row] = 0;
      }
    }
    this.finish(row, serial);
  }

  /** Skips the field `number` whose value starts at `p`. */
  private skipAt(p: number, number: number, wire: number): void {
    this.pos = p;
    this.fieldNumber = number;
    this.skip(number, wire, 0);
  }

  /**
   * Reads one value at `this.pos` by the general readers and writes it to `row`; false when the
   * field stays as it was (a number a closed enum lacks).
   */
  private value(op: number, slot: number, column: number, row: number, again: boolean): boolean {
    const plan = this.plan;
    const columns = this.columns;
    switch (op) {
      case plans.OP_INT32:
      case plans.OP_SINT32:
      case plans.OP_FIXED32: {
        let v = op === plans.OP_FIXED32 ? this.fixed32() : this.varint();
        if (op === plans.OP_SINT32) v = (v >>> 1) ^ -(v & 1);
        columns.int32s[column]![row] = v;
        this.setValid(slot, column, row, v === 0);
        return true;
      }
      case plans.OP_UINT32_AS_INT64:
      case plans.OP_FIXED32_AS_INT64: {
        const lo = op === plans.OP_FIXED32_AS_INT64 ? this.fixed32() : this.varint();
        this.writeWords(slot, column, row, lo, 0);
        return true;
      }
      case plans.OP_INT64: {
        const lo = this.varint();
        this.writeWords(slot, column, row, lo, this.hi);
        return true;
      }
      case plans.OP_SINT64: {
        const lo = this.varint();
        const hi = this.hi;
        const sign = -(lo & 1);
        this.writeWords(slot, column, row, ((lo >>> 1) | (hi << 31)) ^ sign, (hi >>> 1) ^ sign);
        return true;
      }
      case plans.OP_FIXED64: {
        const lo = this.fixed32();
        this.writeWords(slot, column, row, lo, this.fixed32());
        return true;
      }
      case plans.OP_BOOL: {
        const v = this.varint() | this.hi;
        columns.bools[column]![row] = v === 0 ? 0 : 1;
        this.setValid(slot, column, row, v === 0);
        return true;
      }
      case plans.OP_FLOAT:
      case plans.OP_DOUBLE: {
        const v = op === plans.OP_FLOAT ? this.float32() : this.float64();
        columns.float64s[column]![row] = v;
        // Only +0 is the default: protobuf-java compares the bits, so -0 is a value.
        this.setValid(slot, column, row, v === 0 && 1 / v > 0);
        return true;
      }
      case plans.OP_ENUM_NAME:
      case plans.OP_ENUM_NUMBER: {
        const v = this.varint();
        const names = plan.enumNames[slot]!;
        const name = names.get(v);
        // protobuf-java keeps a number a closed enum lacks as an unknown field: the field stays as it was.
        if (name === undefined && plan.closedEnum[slot]) return false;
        if (op === plans.OP_ENUM_NUMBER) columns.int32s[column]![row] = v;
        else {
          const bytes = name ?? names.unknownName(v);
          columns.writeRawString(column, row, bytes, 0, bytes.length);
        }
        this.setValid(slot, column, row, v === 0);
        return true;
      }
      case plans.OP_STRING:
      case plans.OP_BYTES:
        throw new InternalError("strings are read inline by decode()");
      case plans.OP_TIMESTAMP:
        this.timestamp(slot, column, row, again);
        return true;
      default:
        // A required field no column reads: only its presence counts.
        this.skip(this.fieldNumber, plan.wire[slot]!, 0);
        return true;
    }
  }

  /** A field without presence holding its default value reads as null, unless emitDefaultValues. */
  private setValid(slot: number, column: number, row: number, isDefault: boolean): void {
    this.columns.valid[column]![row] = isDefault && this.plan.dropDefault[slot] === 1 ? 0 : 1;
  }

  private writeWords(slot: number, column: number, row: number, lo: number, hi: number): void {
    const words = this.columns.words[column]!;
    words[2 * row] = lo;
    words[2 * row + 1] = hi;
    this.setValid(slot, column, row, (lo | hi) === 0);
  }

  /** Defaults for absent fields, then the checks that need the whole record. */
  private finish(row: number, serial: number): void {
    const plan = this.plan;
    const seen = this.seen;
    for (let i = 0; i < plan.requiredSlots.length; i++) {
      const s = plan.requiredSlots[i]!;
      if (seen[s] !== serial) throw schemaProblem(`required ${plan.describe(plan.fields[s]!.number)} is missing`);
    }
    for (let i = 0; i < plan.fillSlots.length; i++) {
      const s = plan.fillSlots[i]!;
      if (seen[s] !== serial) this.writeFill(s, row);
    }
    for (let i = 0; i < plan.nonNullSlots.length; i++) {
      const s = plan.nonNullSlots[i]!;
      const column = plan.column[s]!;
      if (this.columns.valid[column]![row] === 0) {
        const field = plan.fields[s]!;
        throw schemaProblem(
          `${plan.describe(field.number)} reads as null, but column "${field.name}" is not nullable` +
            (field.presence === "implicit" ? " (proto3 does not write a default value: emitDefaultValues reads it as such)" : ""),
        );
      }
    }
  }

  private writeFill(s: number, row: number): void {
    const plan = this.plan;
    const columns = this.columns;
    const column = plan.column[s]!;
    const bytes = plan.fillBytes[s];
    const value = plan.fillNumber[s]!;
    switch (plan.op[s]) {
      case plans.OP_ENUM_NAME:
      case plans.OP_STRING:
      case plans.OP_BYTES:
        columns.writeRawString(column, row, bytes!, 0, bytes!.length);
        break;
      case plans.OP_BOOL:
        columns.bools[column]![row] = value === 0 ? 0 : 1;
        break;
      case plans.OP_FLOAT:
      case plans.OP_DOUBLE:
        columns.float64s[column]![row] = value;
        break;
      case plans.OP_INT64:
      case plans.OP_SINT64:
      case plans.OP_FIXED64:
      case plans.OP_UINT32_AS_INT64:
      case plans.OP_FIXED32_AS_INT64:
        setInt64Words(columns.words[column]!, row, value);
        break;
      default:
        columns.int32s[column]![row] = value;
    }
    columns.valid[column]![row] = 1;
  }

  /**
   * A google.protobuf.Timestamp as epoch milliseconds, as Spark reads it (microseconds from seconds
   * and nanos, truncated toward zero) floored to milliseconds: seconds * 1000 is whole, so the
   * floor applies to the nanos' microseconds only, and no product leaves the exact range.
   */
  private timestamp(slot: number, column: number, row: number, merge: boolean): void {
    const length = this.length();
    const outerEnd = this.end;
    const end = this.pos + length;
    const outer = this.fieldNumber;
    let seconds = merge ? this.seconds[slot]! : 0;
    let nanos = merge ? this.nanos[slot]! : 0;
    this.end = end;
    while (this.pos < end) {
      this.fieldNumber = IN_TAG;
      const tag = this.varint();
      const number = tag >>> 3;
      const wire = tag & 7;
      if (number === 0) throw this.tagProblem(`field number 0 inside ${this.plan.describe(outer)}`);
      this.fieldNumber = number;
      if ((number === SECONDS || number === NANOS) && wire !== WIRE_VARINT) {
        throw schemaProblem(`${describeField(number, number === SECONDS ? "seconds" : "nanos")} of ${this.plan.describe(outer)} is wire type ${wire}, expected ${WIRE_VARINT}`);
      }
      if (number === SECONDS) {
        const lo = this.varint();
        seconds = this.hi * TWO_32 + (lo >>> 0);
      } else if (number === NANOS) nanos = this.varint();
      else this.skip(number, wire, 0);
    }
    this.end = outerEnd;
    this.fieldNumber = outer;
    this.seconds[slot] = seconds;
    this.nanos[slot] = nanos;
    // Truncated to microseconds, then floored to milliseconds; `| 0` truncates (nanos is an int32).
    const micros = (nanos / NANOS_PER_MICRO) | 0;
    const ms = seconds * MS_PER_SECOND + (micros >= 0 ? (micros / MICROS_PER_MS) | 0 : Math.floor(micros / MICROS_PER_MS));
    if (!(Math.abs(ms) <= MAX_TIMESTAMP_MS)) {
      throw schemaProblem(`${this.plan.describe(outer)} is ${seconds} s and ${nanos} ns, outside the timestamp range (±8.64e15 ms, JavaScript's Date range)`);
    }
    setInt64Words(this.columns.words[column]!, row, ms);
    this.columns.valid[column]![row] = 1;
  }
}
