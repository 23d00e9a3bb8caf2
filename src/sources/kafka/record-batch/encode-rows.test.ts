import * as arrow from "apache-arrow";
import { describe, expect, it } from "vitest";
import { readValidity, utf8FromStrings } from "../../../batch/batch.js";
import { stringsOf } from "../../../kernels/columns.js";
import { crc32c } from "./crc32c.js";
import { encodeRecordBatch } from "./encode.js";
import { encodeHeaderSection, encodeRecordRows, recordSize, restampProducer, type ByteColumn } from "./encode-rows.js";
import { BATCH } from "./layout.js";
import { decode } from "./test-support.js";

const T0 = 1714521600000;
const utf8 = new TextEncoder();

function bytesColumn(data: arrow.Data): ByteColumn {
  const v = stringsOf(data);
  return { offsets: v.offsets, bytes: v.bytes, indices: v.indices, valid: readValidity(data) };
}

const values = ["v0", null, "", "ünïcødé 🙂", "x".repeat(300)];
const keys = ["k0", "k1", null, "ключ", ""];
const producer = { producerId: 4242n, producerEpoch: 3 };

describe("encodeRecordRows", () => {
  it("gathers rows in the given order into the same bytes as the object encoder", () => {
    const rows = Int32Array.of(4, 0, 3, 1, 2);
    const bytes = encodeRecordRows(
      { rows, from: 0, to: 5, values: bytesColumn(utf8FromStrings(values)), keys: bytesColumn(utf8FromStrings(keys)), headers: null, timestamp: T0 },
      { producer, baseSequence: 17 },
    );
    const expected = encodeRecordBatch(
      Array.from(rows, (r) => ({ key: keys[r]!, value: values[r]!, timestamp: T0 })),
      { producer, baseSequence: 17 },
    );
    expect(bytes).toEqual(expected);
    expect(decode(bytes).rows.map((r) => [r.key, r.value, r.offset])).toEqual(Array.from(rows, (r, i) => [keys[r], values[r], i]));
  });

  it("takes a sub-range of the rows, no key column, dictionary values and per-row headers", () => {
    const dictionary = arrow.vectorFromArray(["red", "green", null, "red", "blue"], new arrow.Dictionary(new arrow.Utf8(), new arrow.Int32())).data[0]!;
    const headers = [null, encodeHeaderSection([{ key: utf8.encode("h"), value: utf8.encode("ü") }, { key: utf8.encode("h"), value: null }]), null, null, null];
    const rows = Int32Array.of(9, 1, 2, 3, 9);
    const bytes = encodeRecordRows({ rows, from: 1, to: 4, values: bytesColumn(dictionary), keys: null, headers, timestamp: T0 });
    const expected = encodeRecordBatch([
      { key: null, value: "green", timestamp: T0, headers: [{ key: "h", value: "ü" }, { key: "h", value: null }] },
      { key: null, value: null, timestamp: T0 },
      { key: null, value: "red", timestamp: T0 },
    ]);
    expect(bytes).toEqual(expected);
  });

  it("recordSize is what each record takes, so batch sizes can be planned before encoding", () => {
    const rows = Int32Array.of(0, 1, 2, 3, 4);
    const bytes = encodeRecordRows({ rows, from: 0, to: 5, values: bytesColumn(utf8FromStrings(values)), keys: bytesColumn(utf8FromStrings(keys)), headers: null, timestamp: T0 });
    const len = (s: string | null) => (s === null ? -1 : utf8.encode(s).length);
    const planned = values.reduce<number>((sum, v, i) => sum + recordSize(len(keys[i]!), len(v), 1, i), BATCH.RECORDS);
    expect(planned).toBe(bytes.length);
  });

  it("restampProducer sets producer id, epoch and sequence and redoes the CRC", () => {
    const bytes = encodeRecordRows(
      { rows: Int32Array.of(0), from: 0, to: 1, values: bytesColumn(utf8FromStrings(["a"])), keys: null, headers: null, timestamp: T0 },
      { producer, baseSequence: 5 },
    );
    restampProducer(bytes, { producerId: 99n, producerEpoch: 0, baseSequence: 2147483000 });
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    expect([view.getBigInt64(BATCH.PRODUCER_ID), view.getInt16(BATCH.PRODUCER_EPOCH), view.getInt32(BATCH.BASE_SEQUENCE)]).toEqual([99n, 0, 2147483000]);
    expect(view.getUint32(BATCH.CRC)).toBe(crc32c(bytes, BATCH.ATTRIBUTES));
    expect(bytes).toEqual(encodeRecordBatch([{ key: null, value: "a", timestamp: T0 }], { producer: { producerId: 99n, producerEpoch: 0 }, baseSequence: 2147483000 }));
  });
});
