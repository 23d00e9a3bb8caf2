import { Partitioners } from "kafkajs";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { murmur2, partitionForKey } from "./murmur2.js";

const require = createRequire(import.meta.url);
// kafkajs's DefaultPartitioner is its port of the Java client's: an independent implementation to compare with.
const kafkajsMurmur2 = require("kafkajs/src/producer/partitioners/default/murmur2.js") as (key: Buffer) => number;

const utf8 = new TextEncoder();

describe("murmur2 (Kafka's key hash)", () => {
  it("gives the Java client's values (org.apache.kafka.common.utils.UtilsTest, librdkafka's test)", () => {
    const java: [string, number][] = [
      ["21", -973932308],
      ["foobar", -790332482],
      ["a-little-bit-long-string", -985981536],
      ["a-little-bit-longer-string", -1486304829],
      ["lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8", -58897971],
      ["abc", 479470107],
      ["", 275646681],
      ["a", -1563381124],
    ];
    expect(java.map(([k]) => [k, murmur2(utf8.encode(k))])).toEqual(java);
  });

  it("hashes a byte range in place, as if it were the whole key", () => {
    const bytes = utf8.encode("xxfoobaryy");
    expect(murmur2(bytes, 2, 8)).toBe(-790332482);
  });

  it("agrees with kafkajs's Java-compatible murmur2 on 20,000 random keys of 0-40 bytes, and on non-ASCII keys", () => {
    let seed = 12345;
    const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 24;
    const keys: Uint8Array[] = Array.from({ length: 20_000 }, (_, i) => Uint8Array.from({ length: i % 41 }, next));
    keys.push(...["ключ", "ü", "🙂 emoji", "日本語のキー", "key1"].map((k) => utf8.encode(k)));
    const mismatches = keys.filter((k) => murmur2(k) !== kafkajsMurmur2(Buffer.from(k)));
    expect(mismatches).toEqual([]);
  });

  it("partitionForKey is toPositive(murmur2) % partitions, as kafkajs's DefaultPartitioner", () => {
    const partitioner = Partitioners.DefaultPartitioner();
    for (const partitions of [1, 3, 7, 12]) {
      const partitionMetadata = Array.from({ length: partitions }, (_, p) => ({ partitionId: p, leader: 1, partitionErrorCode: 0, replicas: [1], isr: [1] }));
      for (const key of ["key1", "a", "21", "foobar", "ключ-ü-🙂", "", "x".repeat(100)]) {
        const bytes = utf8.encode(key);
        expect([key, partitionForKey(bytes, 0, bytes.length, partitions)]).toEqual([key, partitioner({ topic: "t", partitionMetadata, message: { key: Buffer.from(bytes), value: null } })]);
      }
    }
    // From the Java hash of "21" alone: (-973932308 & 0x7fffffff) % 7.
    expect(partitionForKey(utf8.encode("21"), 0, 2, 7)).toBe((-973932308 & 0x7fffffff) % 7);
  });
});
