import { syntaxProblem } from "../record-problem.js";
import type { RecordProblem } from "../record-problem.js";
import { WIRE_END_GROUP, WIRE_FIXED32, WIRE_FIXED64, WIRE_LENGTH_DELIMITED, WIRE_START_GROUP, WIRE_VARINT } from "./wire-types.js";

/**
 * A position in Protobuf wire-format bytes and the primitive reads from it: varints (as two 32-bit
 * words, no BigInt), fixed-width values, lengths checked against the end, and the skipping of
 * whole fields by wire type. A read past the end, or a malformed value, throws a `RecordProblem`
 * naming the field being read (`fieldNumber`) through `describe`.
 */

/** protobuf-java's default recursion limit, which bounds nested groups here. */
const MAX_GROUP_DEPTH = 100;
/** A varint holds at most 64 bits: 10 bytes of 7. */
const MAX_VARINT_BYTES = 10;
/** `fieldNumber` while a tag is read: no field yet. */
export const IN_TAG = -1;

const EMPTY = new Uint8Array(0);

export class WireCursor {
  protected src: Uint8Array = EMPTY;
  protected view: DataView = new DataView(EMPTY.buffer);
  protected pos = 0;
  protected end = 0;
  /** The high word of the varint read last (its low word is returned). */
  protected hi = 0;
  /** The field whose value is being read (IN_TAG while reading a tag), for messages. */
  protected fieldNumber = IN_TAG;
  /** Where the record being read starts, for positions in messages. */
  protected recordStart = 0;

  /** `describe(number)` names a field in messages, such as "field 2 (price)". */
  constructor(protected readonly describe: (number: number) => string) {}

  /** The bytes records are read from (once per batch). */
  reset(src: Uint8Array): void {
    this.src = src;
    this.view = new DataView(src.buffer, src.byteOffset, src.byteLength);
  }

  /** Steps over a value of this wire type, checking that it is well formed. */
  protected skip(number: number, wire: number, depth: number): void {
    switch (wire) {
      case WIRE_VARINT:
        this.varint();
        return;
      case WIRE_FIXED64:
        this.take(8, "fixed64");
        return;
      case WIRE_LENGTH_DELIMITED: {
        const length = this.length(); // read before `this.pos`, which reading the length moves
        this.pos += length;
        return;
      }
      case WIRE_START_GROUP:
        this.skipGroup(number, depth + 1);
        return;
      case WIRE_END_GROUP:
        throw syntaxProblem(`end of group ${number} without its start`);
      case WIRE_FIXED32:
        this.take(4, "fixed32");
        return;
      default:
        throw syntaxProblem(`invalid wire type ${wire} in ${this.describe(number)}`);
    }
  }

  /** Skips a proto2 group's fields up to its end tag, which must carry the group's number. */
  protected skipGroup(number: number, depth: number): void {
    if (depth > MAX_GROUP_DEPTH) throw syntaxProblem(`groups nested more than ${MAX_GROUP_DEPTH} deep`);
    while (this.pos < this.end) {
      this.fieldNumber = IN_TAG;
      const tag = this.varint();
      const inner = tag >>> 3;
      const wire = tag & 7;
      if (wire === WIRE_END_GROUP) {
        if (inner !== number) throw syntaxProblem(`end of group ${inner} inside the group of ${this.describe(number)}`);
        return;
      }
      if (inner === 0) throw this.tagProblem("field number 0, which no field has");
      this.fieldNumber = inner;
      this.skip(inner, wire, depth);
    }
    throw syntaxProblem(`the group of ${this.describe(number)} is not closed before the record's end`);
  }

  /** A length-delimited value's length, checked against the bytes left. */
  protected length(): number {
    const length = this.varint();
    const left = this.end - this.pos;
    if (this.hi !== 0 || length < 0) throw syntaxProblem(`negative length of ${this.describe(this.fieldNumber)}`);
    if (length > left) throw syntaxProblem(`length ${length} of ${this.describe(this.fieldNumber)} runs past the record's end (${left} byte(s) left)`);
    return length;
  }

  protected take(bytes: number, what: string): number {
    const at = this.pos;
    if (at + bytes > this.end) throw syntaxProblem(`truncated ${what} in ${this.describe(this.fieldNumber)}`);
    this.pos = at + bytes;
    return at;
  }

  protected fixed32(): number {
    const at = this.take(4, "fixed32");
    const src = this.src;
    return src[at]! | (src[at + 1]! << 8) | (src[at + 2]! << 16) | (src[at + 3]! << 24);
  }

  protected float32(): number {
    return this.view.getFloat32(this.take(4, "float"), true);
  }

  protected float64(): number {
    return this.view.getFloat64(this.take(8, "double"), true);
  }

  /**
   * The varint at `p` when it takes at most 4 bytes (a value below 2^28), with `this.pos` after
   * it; -1 otherwise, for the general reader to take it from `p` (and to report it when bad).
   */
  protected shortVarint(p: number, end: number): number {
    const src = this.src;
    let v = 0;
    for (let i = 0; i < 4 && p + i < end; i++) {
      const b = src[p + i]!;
      v |= (b & 0x7f) << (7 * i);
      if (b < 0x80) {
        this.pos = p + i + 1;
        return v;
      }
    }
    return -1;
  }

  /**
   * Reads a varint: returns its low 32 bits (as a signed int) and leaves the high 32 in `hi`.
   * Bits past 64 in a tenth byte are dropped, as protobuf-java drops them.
   */
  protected varint(): number {
    const src = this.src;
    const end = this.end;
    let p = this.pos;
    // One byte: most tags, lengths, small numbers.
    if (p < end && src[p]! < 0x80) {
      this.pos = p + 1;
      this.hi = 0;
      return src[p]!;
    }
    let lo = 0;
    let hi = 0;
    let shift = 0;
    for (let i = 0; i < MAX_VARINT_BYTES; i++) {
      if (p >= end) throw this.varintProblem("truncated varint");
      const b = src[p++]!;
      if (i < 4) lo |= (b & 0x7f) << shift;
      else if (i === 4) {
        lo |= (b & 0x0f) << 28;
        hi = (b & 0x7f) >>> 4;
      } else hi |= (b & 0x7f) << (shift - 32);
      if (b < 0x80) {
        this.pos = p;
        this.hi = hi;
        return lo;
      }
      shift += 7;
    }
    throw this.varintProblem(`varint longer than ${MAX_VARINT_BYTES} bytes`);
  }

  protected varintProblem(what: string): RecordProblem {
    return this.fieldNumber === IN_TAG ? this.tagProblem(`${what} in a field tag`) : syntaxProblem(`${what} in ${this.describe(this.fieldNumber)}`);
  }

  protected tagProblem(what: string): RecordProblem {
    return syntaxProblem(`${what} at byte ${this.pos - this.recordStart} of the record`);
  }
}
