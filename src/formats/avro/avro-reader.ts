/**
 * Reads Avro's binary primitives from one record at a time: `src[pos, end)`. Hot path of the
 * decoder, so it allocates nothing and makes no BigInt:
 *
 * - ints are zig-zag varints of at most 5 bytes, decoded in 32-bit integer arithmetic (a fifth
 *   byte's bits beyond 32 are dropped, as Java's BinaryDecoder does);
 * - longs are zig-zag varints of at most 10 bytes, decoded into a little-endian pair of 32-bit
 *   words (`lo`, `hi`), exact over the whole 64-bit range: int64 columns take the words as they
 *   are (see batch/numeric-columns.ts), and `long()` gives the nearest double, exact within
 *   ±(2^53 - 1);
 * - floats and doubles are little-endian IEEE 754, read through a DataView.
 *
 * A varint may run past `end` (into the next record, or off the buffer, where a typed array reads
 * undefined and the arithmetic sees 0); the position is checked after it, so a truncated value is
 * always noticed and nothing beyond `end` is ever used. A bad value throws `FAULT`, a shared
 * object (no allocation, no stack), after setting `fault` and its details: the decoder turns it
 * into a message naming the field it was reading.
 */

export const FAULT_TRUNCATED_VARINT = 1;
/** `faultValue`: how many more bytes the value needs. */
export const FAULT_TRUNCATED = 2;
/** `faultValue`: the longest the varint may be (5 for an int, 10 for a long). */
export const FAULT_LONG_VARINT = 3;
/** `faultValue`: the length. */
export const FAULT_NEGATIVE_LENGTH = 4;
/** `faultValue`: the index; `faultLimit`: how many branches the union has. */
export const FAULT_UNION_INDEX = 5;
/** `faultValue`: the index; `faultLimit`: how many symbols the enum has. */
export const FAULT_ENUM_INDEX = 6;
/** `faultValue`: the byte. */
export const FAULT_BOOLEAN = 7;

/** Thrown for every fault; the reader's fields say which. */
export const FAULT: object = Object.freeze({ fault: "avro" });

const TWO_32 = 4294967296;
const INT_VARINT_BYTES = 5;
const LONG_VARINT_BYTES = 10;

export class AvroReader {
  src: Uint8Array = new Uint8Array(0);
  view: DataView = new DataView(this.src.buffer);
  pos = 0;
  end = 0;
  /** The words of the last long read. */
  lo = 0;
  hi = 0;
  fault = 0;
  faultValue = 0;
  faultLimit = 0;

  /** Reads from `src` (whole): records are then positioned with `pos` and `end`. */
  reset(src: Uint8Array): void {
    this.src = src;
    this.view = new DataView(src.buffer, src.byteOffset, src.byteLength);
  }

  fail(fault: number, value: number, limit = 0): never {
    this.fault = fault;
    this.faultValue = value;
    this.faultLimit = limit;
    throw FAULT;
  }

  /** A zig-zag int. */
  int(): number {
    const src = this.src;
    let pos = this.pos;
    let b = src[pos++]!;
    let raw = b & 0x7f;
    if (b & 0x80) {
      b = src[pos++]!;
      raw |= (b & 0x7f) << 7;
      if (b & 0x80) {
        b = src[pos++]!;
        raw |= (b & 0x7f) << 14;
        if (b & 0x80) {
          b = src[pos++]!;
          raw |= (b & 0x7f) << 21;
          if (b & 0x80) {
            b = src[pos++]!;
            raw |= b << 28;
            if (b & 0x80) this.fail(pos > this.end ? FAULT_TRUNCATED_VARINT : FAULT_LONG_VARINT, INT_VARINT_BYTES);
          }
        }
      }
    }
    if (pos > this.end) this.fail(FAULT_TRUNCATED_VARINT, 0);
    this.pos = pos;
    return (raw >>> 1) ^ -(raw & 1);
  }

  /** A zig-zag long into `lo` and `hi`. */
  longWords(): void {
    const src = this.src;
    let pos = this.pos;
    let b = src[pos++]!;
    let lo = b & 0x7f;
    let hi = 0;
    if (b & 0x80) {
      b = src[pos++]!;
      lo |= (b & 0x7f) << 7;
      if (b & 0x80) {
        b = src[pos++]!;
        lo |= (b & 0x7f) << 14;
        if (b & 0x80) {
          b = src[pos++]!;
          lo |= (b & 0x7f) << 21;
          if (b & 0x80) {
            // Byte 5 holds bits 28-34: four in the low word, three in the high one.
            b = src[pos++]!;
            lo |= (b & 0x7f) << 28;
            hi = (b & 0x7f) >>> 4;
            for (let shift = 3; b & 0x80; shift += 7) {
              if (shift > 31) this.fail(pos > this.end ? FAULT_TRUNCATED_VARINT : FAULT_LONG_VARINT, LONG_VARINT_BYTES);
              b = src[pos++]!;
              hi |= (b & 0x7f) << shift;
            }
          }
        }
      }
    }
    if (pos > this.end) this.fail(FAULT_TRUNCATED_VARINT, 0);
    this.pos = pos;
    // Zig-zag on the pair: shift the 64 bits right by one and flip them all when the lowest was set.
    const sign = -(lo & 1);
    this.lo = ((lo >>> 1) | (hi << 31)) ^ sign;
    this.hi = (hi >>> 1) ^ sign;
  }

  /** A zig-zag long as the nearest double (exact within ±(2^53 - 1)). */
  long(): number {
    this.longWords();
    return this.hi * TWO_32 + (this.lo >>> 0);
  }

  /** Checks that `n` more bytes lie within the record. */
  need(n: number): void {
    if (this.pos + n > this.end) this.fail(FAULT_TRUNCATED, this.pos + n - this.end);
  }

  /** The length before bytes or a string, checked against what is left; the data then starts at `pos`. */
  length(): number {
    // Most strings are shorter than 64 bytes: their length is one varint byte (0x00-0x7e, even).
    const b = this.src[this.pos]!;
    if (b < 0x80 && (b & 1) === 0 && this.pos < this.end) {
      const n = b >>> 1;
      this.pos++;
      this.need(n);
      return n;
    }
    const n = this.long();
    if (n < 0) this.fail(FAULT_NEGATIVE_LENGTH, n);
    this.need(n);
    return n;
  }

  skipVarint(): void {
    const src = this.src;
    let pos = this.pos;
    const limit = pos + LONG_VARINT_BYTES;
    while (src[pos++]! & 0x80) if (pos >= limit) this.fail(pos > this.end ? FAULT_TRUNCATED_VARINT : FAULT_LONG_VARINT, LONG_VARINT_BYTES);
    if (pos > this.end) this.fail(FAULT_TRUNCATED_VARINT, 0);
    this.pos = pos;
  }

  skip(n: number): void {
    this.need(n);
    this.pos += n;
  }

  float(): number {
    this.need(4);
    const v = this.view.getFloat32(this.pos, true);
    this.pos += 4;
    return v;
  }

  double(): number {
    this.need(8);
    const v = this.view.getFloat64(this.pos, true);
    this.pos += 8;
    return v;
  }

  /** A boolean as 0 or 1; any other byte is a fault. */
  boolean(): number {
    this.need(1);
    const b = this.src[this.pos++]!;
    if (b > 1) this.fail(FAULT_BOOLEAN, b);
    return b;
  }
}
