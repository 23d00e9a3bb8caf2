import { InternalError } from "../errors/errors.js";
import { describeByte, syntaxProblem, type RecordProblem } from "../formats/record-problem.js";

/**
 * The Confluent wire format: how Confluent's serializers (and every client compatible with them) frame a
 * Kafka key or value. Byte 0 is the magic byte 0, bytes 1-4 the schema's registry id as a big-endian
 * 32-bit integer, and the payload follows. A Protobuf payload is preceded by its message indexes: which
 * message type of the schema the record is, as the path of indexes from the schema's top-level messages
 * down through nested ones. They are zigzag varints, the count and then each index, except that the most
 * common list, [0] (the first top-level message), is written as the single byte 0.
 *
 * Reads return a `RecordProblem` instead of throwing: a topic with many foreign records (plain JSON, say)
 * goes through the bad-record modes one record at a time, and a throw per record would capture a stack
 * each time. Writes throw, since a bad id or index there is the caller's bug, not the data's.
 */

export const MAGIC_BYTE = 0;
/** The magic byte and the 4-byte schema id. */
export const WIRE_HEADER_LENGTH = 5;
/** Schema ids are Java ints on the JVM side: the writer refuses anything the JVM could not read back. */
const MAX_ID = 0x7fff_ffff;
/** A 32-bit varint takes at most 5 bytes (7 bits each), as Java's ByteUtils.readVarint allows. */
const MAX_VARINT_BYTES = 5;

export interface WireHeader {
  /** The schema's id in the registry. */
  readonly schemaId: number;
  /** Where the payload starts in the bytes read, after the header (and the message indexes). */
  readonly payloadOffset: number;
  /** Protobuf only: the path to the record's message type, [0] for the first top-level message. */
  readonly messageIndexes?: readonly number[];
}

export interface ReadWireHeaderOptions {
  /** Where the value ends in `bytes` (default: the end of the view), for values inside a larger buffer. */
  readonly end?: number;
  /**
   * Read the Protobuf message indexes after the schema id. The header cannot say whether they are there:
   * only the schema's type (or the deserializer a consumer was configured with) can.
   */
  readonly protobuf?: boolean;
}

/** [0], shared: the list nearly every Protobuf record carries, read without an allocation. */
const FIRST_MESSAGE: readonly number[] = Object.freeze([0]);

/**
 * The header of a value in the Confluent wire format that starts at `offset` in `bytes`, or why the value
 * is not in that format. Reads the bytes in place: `bytes` may be a view into a larger buffer.
 */
export function readWireHeader(bytes: Uint8Array, offset = 0, options?: ReadWireHeaderOptions): WireHeader | RecordProblem {
  const end = options?.end ?? bytes.length;
  const length = end - offset;
  if (length < WIRE_HEADER_LENGTH) {
    return syntaxProblem(
      `not in the Confluent wire format: the value is ${length} byte(s) long, shorter than its ${WIRE_HEADER_LENGTH}-byte header (magic byte 0 and a 4-byte schema id)`,
    );
  }
  const magic = bytes[offset]!;
  if (magic !== MAGIC_BYTE) {
    return syntaxProblem(
      `not in the Confluent wire format: the value starts with ${describeByte(magic)}, not the magic byte 0 that a schema registry serializer writes first`,
    );
  }
  // Unsigned: a value a Java writer cannot produce (the top bit set) is then an id the registry does not know.
  const schemaId = ((bytes[offset + 1]! << 24) | (bytes[offset + 2]! << 16) | (bytes[offset + 3]! << 8) | bytes[offset + 4]!) >>> 0;
  if (!options?.protobuf) return { schemaId, payloadOffset: offset + WIRE_HEADER_LENGTH };
  return readMessageIndexes(bytes, offset + WIRE_HEADER_LENGTH, end, schemaId);
}

function readMessageIndexes(bytes: Uint8Array, start: number, end: number, schemaId: number): WireHeader | RecordProblem {
  let pos = readVarint(bytes, start, end);
  if (pos < 0) return varintProblem(pos, "count");
  const count = varintValue;
  if (count === 0) return { schemaId, payloadOffset: pos, messageIndexes: FIRST_MESSAGE };
  // Each index takes at least one byte: a count beyond the bytes left is corrupt, and must not size an array.
  if (count < 0 || count > end - pos) {
    return syntaxProblem(`the Protobuf message-index list of the Confluent wire format has a count of ${count}, but ${end - pos} byte(s) follow it`);
  }
  const indexes: number[] = new Array(count);
  for (let i = 0; i < count; i++) {
    pos = readVarint(bytes, pos, end);
    if (pos < 0) return varintProblem(pos, `index ${i + 1} of ${count}`);
    if (varintValue < 0) return syntaxProblem(`the Protobuf message-index list of the Confluent wire format has a negative index (${varintValue})`);
    indexes[i] = varintValue;
  }
  return { schemaId, payloadOffset: pos, messageIndexes: indexes };
}

const VARINT_TRUNCATED = -1;
const VARINT_TOO_LONG = -2;

/**
 * The value of the varint `readVarint` read last. Module state rather than a returned pair: reads are
 * synchronous, and this saves an object per varint.
 */
let varintValue = 0;

/**
 * Reads the zigzag varint at `pos` into `varintValue` and returns the position after it, or
 * VARINT_TRUNCATED when the value ends first, VARINT_TOO_LONG when it runs past 5 bytes.
 */
function readVarint(bytes: Uint8Array, pos: number, end: number): number {
  let raw = 0;
  for (let i = 0; i < MAX_VARINT_BYTES; i++) {
    if (pos >= end) return VARINT_TRUNCATED;
    const b = bytes[pos++]!;
    raw |= (b & 0x7f) << (7 * i);
    if ((b & 0x80) === 0) {
      varintValue = (raw >>> 1) ^ -(raw & 1);
      return pos;
    }
  }
  return VARINT_TOO_LONG;
}

function varintProblem(code: number, what: string): RecordProblem {
  return syntaxProblem(
    code === VARINT_TRUNCATED
      ? `the Protobuf message-index list of the Confluent wire format ends inside its ${what}`
      : `the Protobuf message-index list of the Confluent wire format has a varint longer than ${MAX_VARINT_BYTES} bytes in its ${what}`,
  );
}

/** How many bytes `writeWireHeader` writes for these message indexes (none: not Protobuf). */
export function wireHeaderLength(messageIndexes?: readonly number[]): number {
  if (messageIndexes === undefined) return WIRE_HEADER_LENGTH;
  if (isFirstMessage(messageIndexes)) return WIRE_HEADER_LENGTH + 1;
  let n = WIRE_HEADER_LENGTH + varintLength(messageIndexes.length);
  for (const index of messageIndexes) n += varintLength(index);
  return n;
}

/**
 * Writes the header of a value in the Confluent wire format into `target` at `offset`, and returns the
 * offset after it, where the payload goes. `messageIndexes` is for Protobuf payloads only; size the target
 * with `wireHeaderLength`.
 */
export function writeWireHeader(target: Uint8Array, offset: number, schemaId: number, messageIndexes?: readonly number[]): number {
  if (!Number.isInteger(schemaId) || schemaId < 0 || schemaId > MAX_ID) {
    throw new InternalError(`a Confluent wire-format schema id is a whole number from 0 to ${MAX_ID}, got ${schemaId}`);
  }
  if (messageIndexes !== undefined) checkIndexes(messageIndexes);
  const length = wireHeaderLength(messageIndexes);
  if (offset < 0 || offset + length > target.length) {
    throw new InternalError(`a ${length}-byte Confluent wire-format header does not fit at offset ${offset} of ${target.length} byte(s)`);
  }
  target[offset] = MAGIC_BYTE;
  target[offset + 1] = schemaId >>> 24;
  target[offset + 2] = (schemaId >>> 16) & 0xff;
  target[offset + 3] = (schemaId >>> 8) & 0xff;
  target[offset + 4] = schemaId & 0xff;
  let pos = offset + WIRE_HEADER_LENGTH;
  if (messageIndexes === undefined) return pos;
  if (isFirstMessage(messageIndexes)) {
    target[pos] = 0;
    return pos + 1;
  }
  pos = writeVarint(target, pos, messageIndexes.length);
  for (const index of messageIndexes) pos = writeVarint(target, pos, index);
  return pos;
}

/** A header on its own, for a writer that puts the same one before every value of a schema. */
export function wireHeader(schemaId: number, messageIndexes?: readonly number[]): Uint8Array {
  const header = new Uint8Array(wireHeaderLength(messageIndexes));
  writeWireHeader(header, 0, schemaId, messageIndexes);
  return header;
}

function isFirstMessage(indexes: readonly number[]): boolean {
  return indexes.length === 1 && indexes[0] === 0;
}

function checkIndexes(indexes: readonly number[]): void {
  // [] would be written as count 0, which reads back as [0]: the list always names a message.
  if (indexes.length === 0) throw new InternalError("a Protobuf message-index list names a message: it has at least one index");
  for (const index of indexes) {
    if (!Number.isInteger(index) || index < 0 || index > MAX_ID) {
      throw new InternalError(`a Protobuf message index is a whole number from 0 to ${MAX_ID}, got ${index}`);
    }
  }
}

/** Zigzag: a non-negative n is written as 2n. */
function varintLength(n: number): number {
  let raw = n * 2;
  let bytes = 1;
  while (raw >= 0x80) {
    raw = Math.floor(raw / 0x80);
    bytes++;
  }
  return bytes;
}

function writeVarint(target: Uint8Array, pos: number, n: number): number {
  // n <= 2^31 - 1, so 2n fits an unsigned 32-bit value.
  let raw = (n * 2) >>> 0;
  while (raw >= 0x80) {
    target[pos++] = (raw & 0x7f) | 0x80;
    raw >>>= 7;
  }
  target[pos++] = raw;
  return pos;
}
