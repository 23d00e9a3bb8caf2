/**
 * Byte layout of a Kafka record batch, message format v2 (magic 2), all integers big-endian:
 *
 *   0 baseOffset int64        8 batchLength int32 (bytes after this field)
 *  12 partitionLeaderEpoch    16 magic int8          17 crc uint32 (CRC-32C of bytes 21..end)
 *  21 attributes int16        23 lastOffsetDelta     27 baseTimestamp int64
 *  35 maxTimestamp int64      43 producerId int64    51 producerEpoch int16
 *  53 baseSequence int32      57 recordsCount int32  61 records (compressed as one block if any)
 */
export const BATCH = {
  BASE_OFFSET: 0,
  LENGTH: 8,
  LEADER_EPOCH: 12,
  MAGIC: 16,
  CRC: 17,
  ATTRIBUTES: 21,
  LAST_OFFSET_DELTA: 23,
  BASE_TIMESTAMP: 27,
  MAX_TIMESTAMP: 35,
  PRODUCER_ID: 43,
  PRODUCER_EPOCH: 51,
  BASE_SEQUENCE: 53,
  RECORDS_COUNT: 57,
  RECORDS: 61,
} as const;

/** baseOffset and batchLength precede what batchLength counts. */
export const LOG_OVERHEAD = 12;
/** The smallest legal batchLength: a header with no records. */
export const MIN_BATCH_LENGTH = BATCH.RECORDS - LOG_OVERHEAD;
export const MAGIC_V2 = 2;

/** Attribute bits above the compression code. */
export const ATTR = {
  LOG_APPEND_TIME: 0x08,
  TRANSACTIONAL: 0x10,
  CONTROL: 0x20,
} as const;

/** Control record types (the int16 after the version in a control record's key). */
export const CONTROL_TYPE = { ABORT: 0, COMMIT: 1 } as const;

/** Producer id of batches written without idempotence or transactions. */
export const NO_PRODUCER_ID = -1;

const TWO_POW_32 = 4294967296;

/** A big-endian int64 as a JavaScript number: exact up to 2^53 (offsets, timestamps). */
export function readInt64(view: DataView, pos: number): number {
  return view.getInt32(pos) * TWO_POW_32 + view.getUint32(pos + 4);
}

export function writeInt64(view: DataView, pos: number, value: number | bigint): void {
  if (typeof value === "bigint") {
    view.setBigInt64(pos, value);
    return;
  }
  const high = Math.floor(value / TWO_POW_32);
  view.setInt32(pos, high);
  view.setUint32(pos + 4, value - high * TWO_POW_32);
}
