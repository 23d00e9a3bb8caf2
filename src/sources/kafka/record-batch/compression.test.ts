import { describe, expect, it } from "vitest";
import { SluiceError } from "../../../errors/errors.js";
import { canCompressZstd } from "./codecs/zstd.js";
import { compressRecords, decompressRecords, type KafkaCompression } from "./compression.js";
import { encodeRecordBatch, type KafkaRecordInput } from "./encode.js";
import { BATCH } from "./layout.js";
import { decode, fromHex, withRecordsSection } from "./test-support.js";

const T0 = 1714521600000;

/** The records behind the fixtures below (their section is 369 bytes uncompressed). */
const RECORDS: KafkaRecordInput[] = Array.from({ length: 6 }, (_, i) => ({
  key: i % 2 ? `key-${i}` : null,
  value: `{"n":${i},"text":"hello hello hello hello hello hello"}`,
  timestamp: T0 + i * 10,
}));
const PLAIN = encodeRecordBatch(RECORDS, { baseOffset: 500 });
const SECTION = PLAIN.subarray(BATCH.RECORDS);
const EXPECTED = decode(PLAIN).rows;

/**
 * SECTION compressed by the reference command-line tools (lz4 1.9, zstd 1.5): default settings,
 * then other frame options, so reading does not depend only on Sluice's own writer.
 */
const FIXTURES: Record<string, { codec: number; hex: string }> = {
  "lz4 (4 MiB blocks, content checksum)": {
    codec: 3,
    hex: "04224d186440a773000000ff0c7400000001687b226e223a302c2274657874223a2268656c6c6f2006000ad2227d007e0014020a6b65792d3140001f3140001c43740028047b001f323b001c417e003c067b0012337b001f3340001c43740050087b001f343b001c417e00640a7b0012357b001f35400017506c6f227d0000000000a800fb75",
  },
  "lz4 (64 KiB blocks, block checksums, content size)": {
    codec: 3,
    hex: "04224d187c4071010000000000006273000000ff0c7400000001687b226e223a302c2274657874223a2268656c6c6f2006000ad2227d007e0014020a6b65792d3140001f3140001c43740028047b001f323b001c417e003c067b0012337b001f3340001c43740050087b001f343b001c417e00640a7b0012357b001f35400017506c6f227d00b479f16700000000a800fb75",
  },
  "zstd (content size, checksum)": {
    codec: 4,
    hex: "28b52ffd647100ed0200c4037400000001687b226e223a302c2274657874223a2268656c6c6f20227d007e0014020a6b65792d31317400280401327e003c063333500834640a35350d008028602eb8501019c89a200accf5c3458078bd1a1488ec10867fee320653633de4",
  },
  "zstd (streamed: no content size, no checksum)": {
    codec: 4,
    hex: "28b52ffd0058cd020094037400000001687b226e223a302c2274657874223a2268656c6c6f20227d007e0014020a6b65792d313174002804323c063333500834640a35350d008028602eb8501019c89a200a980b2e1422f3439640648730fc739731",
  },
};

/** A raw Snappy block holding `data` as one literal (tag 61: two-byte length), per the Snappy format. */
function literalSnappyBlock(data: Uint8Array): Uint8Array {
  const n = data.length - 1;
  const head = [data.length & 0x7f | 0x80, data.length >> 7, 61 << 2, n & 0xff, n >> 8];
  return Uint8Array.from([...head, ...data]);
}

describe("compressed batches", () => {
  it.each(["gzip", "snappy", "lz4"] as const)("round-trips %s batches", (compression) => {
    const bytes = encodeRecordBatch(RECORDS, { baseOffset: 500, compression });
    expect(new DataView(bytes.buffer).getInt16(BATCH.ATTRIBUTES) & 7).toBe(["none", "gzip", "snappy", "lz4"].indexOf(compression));
    expect(bytes.length).toBeLessThan(PLAIN.length);
    expect(decode(bytes).rows).toEqual(EXPECTED);
  });

  it.each(Object.entries(FIXTURES))("reads %s frames written by the reference tool", (_, { codec, hex }) => {
    const compressed = fromHex(hex);
    expect(decompressRecords(codec, compressed)).toEqual(SECTION);
    expect(decode(withRecordsSection(PLAIN, codec, compressed)).rows).toEqual(EXPECTED);
  });

  it("reads Snappy in the xerial framing and as a bare block", () => {
    const block = literalSnappyBlock(SECTION);
    const xerial = Uint8Array.from([0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, block.length >> 8, block.length & 0xff, ...block]);
    expect(decode(withRecordsSection(PLAIN, 2, xerial)).rows).toEqual(EXPECTED);
    expect(decode(withRecordsSection(PLAIN, 2, block)).rows).toEqual(EXPECTED);
  });

  it.each(["gzip", "snappy", "lz4"] as const)("round-trips %s sections spanning many codec blocks", (compression: KafkaCompression) => {
    // 200 KB of varied text: several 64 KiB LZ4 blocks and 32 KiB Snappy chunks.
    const input = new TextEncoder().encode(Array.from({ length: 6000 }, (_, i) => `{"i":${i},"h":"${((i * 2654435761) >>> 0).toString(36)}"}`).join("\n"));
    expect(input.length).toBeGreaterThan(100_000);
    const output = decompressRecords(["none", "gzip", "snappy", "lz4"].indexOf(compression), compressRecords(compression, input));
    // Buffer comparison: a deep equality over 200 KB element by element is slow.
    expect(Buffer.from(output.buffer, output.byteOffset, output.length).equals(input)).toBe(true);
  });

  it("writes LZ4 frames the way Kafka's Java reader expects: independent 64 KiB blocks (header checksum as the lz4 tool writes it)", () => {
    const frame = compressRecords("lz4", new Uint8Array(200_000).fill(7));
    expect(Array.from(frame.subarray(0, 7))).toEqual([0x04, 0x22, 0x4d, 0x18, 0x60, 0x40, 0x82]);
  });

  it("writes zstd where Node can, and says why where it cannot", () => {
    if (canCompressZstd()) {
      expect(decode(encodeRecordBatch(RECORDS, { baseOffset: 500, compression: "zstd" })).rows).toEqual(EXPECTED);
    } else {
      expect(() => encodeRecordBatch(RECORDS, { compression: "zstd" })).toThrow(
        `cannot write zstd-compressed Kafka batches on Node ${process.versions.node}: compressing zstd needs Node 22.15 or later (reading zstd works on any supported Node); choose "gzip", "snappy", "lz4" or "none"`,
      );
    }
  });

  it("names the codec when compressed data is corrupt, and rejects undefined codecs", () => {
    const gzip = encodeRecordBatch(RECORDS, { baseOffset: 500, compression: "gzip" });
    const corrupt = withRecordsSection(gzip, 1, gzip.subarray(BATCH.RECORDS, gzip.length - 10));
    expect(() => decode(corrupt)).toThrow(/^Kafka topic "events" partition 2: the record batch at offset 500 is malformed: its gzip data does not decompress \(/);
    const unknown = withRecordsSection(PLAIN, 6, SECTION);
    expect(() => decode(unknown)).toThrow(SluiceError);
    expect(() => decode(unknown)).toThrow(
      'Kafka topic "events" partition 2: the record batch at offset 500: record batch uses compression code 6, which Kafka does not define (0 none, 1 gzip, 2 snappy, 3 lz4, 4 zstd)',
    );
  });
});
