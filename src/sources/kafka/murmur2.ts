/**
 * Kafka's key partitioner, bit for bit as the Java client's (`Utils.murmur2` and
 * `BuiltInPartitioner.partitionForKey`): a record with key bytes k goes to partition
 * `toPositive(murmur2(k)) % numPartitions`, so Sluice puts keys where Java, Spark and Kafka Streams
 * producers put them. Reads the bytes in place: no copy, no allocation.
 */

const SEED = 0x9747b28c;
const M = 0x5bd1e995;

/** Kafka's 32-bit murmur2 of `bytes[start, end)`, as a signed int (Java's `int`). */
export function murmur2(bytes: Uint8Array, start = 0, end = bytes.length): number {
  const length = end - start;
  let h = SEED ^ length;
  const blockEnd = start + (length & ~3);
  for (let i = start; i < blockEnd; i += 4) {
    let k = bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24);
    k = Math.imul(k, M);
    k ^= k >>> 24;
    k = Math.imul(k, M);
    h = Math.imul(h, M) ^ k;
  }
  const tail = length & 3;
  if (tail > 0) {
    if (tail === 3) h ^= bytes[blockEnd + 2]! << 16;
    if (tail >= 2) h ^= bytes[blockEnd + 1]! << 8;
    h ^= bytes[blockEnd]!;
    h = Math.imul(h, M);
  }
  h ^= h >>> 13;
  h = Math.imul(h, M);
  h ^= h >>> 15;
  return h | 0;
}

/** The partition Kafka's default partitioner gives a record whose key is `bytes[start, end)`. */
export function partitionForKey(bytes: Uint8Array, start: number, end: number, numPartitions: number): number {
  return (murmur2(bytes, start, end) & 0x7fffffff) % numPartitions;
}
