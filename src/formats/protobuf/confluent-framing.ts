import { MAGIC_BYTE, readWireHeader, WIRE_HEADER_LENGTH } from "../../schema-registry/wire-format.js";
import { RecordProblem } from "../record-problem.js";
import type { WriterSchemas } from "./writer-schemas.js";

/**
 * Protobuf records in the Confluent wire format (schema-registry/wire-format.ts): magic byte 0,
 * the writer schema's 4-byte id, the message indexes, then the message.
 */

/** [0] as the single byte 0: what nearly every record carries (the first message of its schema). */
const FIRST_MESSAGE: readonly number[] = Object.freeze([0]);

function schemaIdAt(bytes: Uint8Array, at: number): number {
  return ((bytes[at + 1]! << 24) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 8) | bytes[at + 4]!) >>> 0;
}

/**
 * The distinct writer schema ids of a batch's records, ascending: what to fetch from the registry
 * before decoding. One pass over 5 bytes per record; records that are null, too short or without
 * the magic byte are left out (decoding reports them).
 */
export function schemaIdsIn(bytes: Uint8Array, offsets: Int32Array, validity: Uint8Array | null): number[] {
  const ids = new Set<number>();
  let last = -1;
  const numRecords = Math.max(0, offsets.length - 1);
  for (let i = 0; i < numRecords; i++) {
    if (validity !== null && validity[i] === 0) continue;
    const start = offsets[i]!;
    if (offsets[i + 1]! - start < WIRE_HEADER_LENGTH || bytes[start] !== MAGIC_BYTE) continue;
    const id = schemaIdAt(bytes, start);
    // Consecutive records mostly share their id: the set is asked only when it changes.
    if (id !== last) ids.add((last = id));
  }
  return [...ids].sort((a, b) => a - b);
}

/** Finds where each framed record's message starts, after checking its writer schema. */
export class ConfluentPayloads {
  private lastId = -1;

  constructor(private readonly writers: WriterSchemas) {}

  /** The start of the message in the record `bytes[start, end)`; throws the RecordProblem that stops it. */
  payloadStart(bytes: Uint8Array, start: number, end: number): number {
    // The common header (message indexes [0]) read in place, without the general reader's result object.
    if (end - start > WIRE_HEADER_LENGTH && bytes[start] === MAGIC_BYTE && bytes[start + WIRE_HEADER_LENGTH] === 0) {
      const id = schemaIdAt(bytes, start);
      if (id !== this.lastId) {
        const problem = this.writers.problemOf(id, FIRST_MESSAGE);
        if (problem !== null) throw problem;
        this.lastId = id;
      }
      return start + WIRE_HEADER_LENGTH + 1;
    }
    const header = readWireHeader(bytes, start, { end, protobuf: true });
    if (header instanceof RecordProblem) throw header;
    const problem = this.writers.problemOf(header.schemaId, header.messageIndexes!);
    if (problem !== null) throw problem;
    return header.payloadOffset;
  }
}
