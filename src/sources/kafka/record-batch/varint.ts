/**
 * Kafka's variable-length integers: protobuf-style base-128 varints, zigzag-encoded so small
 * negative numbers stay short (-1, a null key's length, is one byte).
 *
 * The decoder's hot loop reads one-byte varints inline and calls these only for longer ones. A
 * reader cannot return both a value and a position without allocating, so it returns the value
 * and leaves the position after the varint in `varintCursor.next`.
 */

/** Where the last `readVarint`/`readVarlong` call stopped: the index just past the varint. */
export const varintCursor = { next: 0 };

const TWO_POW_28 = 268_435_456;

/** Reads a zigzag varint (at most 5 bytes, a 32-bit value) starting at `pos`. */
export function readVarint(bytes: Uint8Array, pos: number): number {
  const raw = readUnsignedVarint(bytes, pos);
  return (raw >>> 1) ^ -(raw & 1);
}

/** Reads a varint without undoing the zigzag, for callers that inline the short cases. */
export function readUnsignedVarint(bytes: Uint8Array, pos: number): number {
  let raw = 0;
  let shift = 0;
  let b: number;
  do {
    if (shift > 28) throw new RangeError(`varint at byte ${pos} is longer than 5 bytes`);
    b = bytes[pos++]!;
    raw |= (b & 0x7f) << shift;
    shift += 7;
  } while (b & 0x80);
  varintCursor.next = pos;
  return raw;
}

/**
 * Reads a zigzag varlong (at most 10 bytes) starting at `pos`, as a JavaScript number: exact for
 * magnitudes up to 2^53, which covers every timestamp delta and offset Kafka produces in practice.
 */
export function readVarlong(bytes: Uint8Array, pos: number): number {
  // Low 28 bits with integer shifts, the rest with multiplication (shifts would wrap at 32 bits).
  let low = 0;
  let shift = 0;
  let b: number;
  do {
    b = bytes[pos++]!;
    low |= (b & 0x7f) << shift;
    shift += 7;
  } while (b & 0x80 && shift < 28);
  let raw = low;
  if (b & 0x80) {
    let scale = TWO_POW_28;
    do {
      if (shift > 63) throw new RangeError(`varlong at byte ${pos} is longer than 10 bytes`);
      b = bytes[pos++]!;
      raw += (b & 0x7f) * scale;
      scale *= 128;
      shift += 7;
    } while (b & 0x80);
  }
  varintCursor.next = pos;
  // Zigzag: even raw values are non-negative (raw / 2), odd ones negative (-(raw + 1) / 2).
  return raw % 2 === 0 ? raw / 2 : -(raw + 1) / 2;
}

/** Bytes a zigzag varint of `value` (a 32-bit integer) takes. */
export function sizeOfVarint(value: number): number {
  let raw = ((value << 1) ^ (value >> 31)) >>> 0;
  let size = 1;
  while (raw >= 0x80) {
    raw >>>= 7;
    size++;
  }
  return size;
}

/** Bytes a zigzag varlong of `value` (an integer up to 2^53 in magnitude) takes. */
export function sizeOfVarlong(value: number): number {
  let raw = value >= 0 ? value * 2 : -value * 2 - 1;
  let size = 1;
  while (raw >= 0x80) {
    raw = Math.floor(raw / 128);
    size++;
  }
  return size;
}

/** Writes a zigzag varint of `value` (a 32-bit integer) at `pos`; returns the position after it. */
export function writeVarint(out: Uint8Array, pos: number, value: number): number {
  let raw = ((value << 1) ^ (value >> 31)) >>> 0;
  while (raw >= 0x80) {
    out[pos++] = (raw & 0x7f) | 0x80;
    raw >>>= 7;
  }
  out[pos++] = raw;
  return pos;
}

/** Writes a zigzag varlong of `value` (an integer up to 2^53 in magnitude) at `pos`. */
export function writeVarlong(out: Uint8Array, pos: number, value: number): number {
  let raw = value >= 0 ? value * 2 : -value * 2 - 1;
  while (raw >= 0x80) {
    out[pos++] = (raw % 128) | 0x80;
    raw = Math.floor(raw / 128);
  }
  out[pos++] = raw;
  return pos;
}
