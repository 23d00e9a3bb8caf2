import type * as arrow from "apache-arrow";
import { type Batch, readNumbers, readValidity } from "../batch/batch.js";
import { SluiceError } from "../errors/errors.js";
import { stringsOf } from "../kernels/columns.js";
import { partitionForKey } from "../sources/kafka/murmur2.js";
import { BATCH_OVERHEAD, byteLength, recordSize, type ByteColumn } from "../sources/kafka/record-batch/encode-rows.js";
import { encodeHeadersColumn } from "./kafka-sink-headers.js";

/**
 * How the Kafka sink lays a batch out as record batches, without per-row objects or strings:
 * the `value` and `key` columns are read as bytes + offsets, every row gets a topic and a
 * partition, rows are grouped per topic-partition (a stable counting sort, so each partition keeps
 * the batch's row order) and each group is cut into record batches under `maxBatchBytes`.
 *
 * Partitions follow Kafka's default partitioner: an explicit non-null `partition` column wins;
 * otherwise a non-null key goes to `toPositive(murmur2(key)) % numPartitions` (where Java
 * clients put it); rows with neither stick to one partition until a full record batch went there,
 * then move to the next partition that has a leader (Kafka's sticky partitioner, switching at
 * batch boundaries).
 */

export interface SinkColumns {
  readonly numRows: number;
  readonly value: ByteColumn;
  readonly key: ByteColumn | null;
  readonly topic: ByteColumn | null;
  readonly partition: { readonly values: Float64Array; readonly valid: Uint8Array | null } | null;
  /** Encoded header section per row (null: none); null when the batch has no headers column. */
  readonly headers: (Uint8Array | null)[] | null;
}

function bytesColumn(data: arrow.Data): ByteColumn {
  const view = stringsOf(data);
  return { offsets: view.offsets, bytes: view.bytes, indices: view.indices, valid: readValidity(data) };
}

export function readSinkColumns(data: Batch): SinkColumns {
  const col = (name: string) => {
    const i = data.fields.findIndex((f) => f.name === name);
    return i < 0 ? null : data.columns[i]!;
  };
  const value = col("value");
  if (!value) throw new SluiceError("Required attribute 'value' not found");
  const key = col("key");
  const topic = col("topic");
  const partition = col("partition");
  const headersIndex = data.fields.findIndex((f) => f.name === "headers");
  const headers = headersIndex < 0 ? null : data.columns[headersIndex]!;
  return {
    numRows: data.numRows,
    value: bytesColumn(value),
    key: key ? bytesColumn(key) : null,
    topic: topic ? bytesColumn(topic) : null,
    partition: partition ? { values: readNumbers(partition), valid: readValidity(partition) } : null,
    headers: headers ? encodeHeadersColumn(headers, data.fields[headersIndex]!.type, data.numRows) : null,
  };
}

const utf8 = new TextDecoder();

/** Each row's topic (an index into `names`); `rowTopic` is null when every row goes to `names[0]`. */
export function rowTopics(c: SinkColumns, topicOption: string | null): { names: string[]; rowTopic: Int32Array | null } {
  const t = c.topic;
  if (t === null) {
    if (topicOption === null) throw new SluiceError("topic option required when no 'topic' attribute is present. Use the topic option for setting a topic.");
    return { names: [topicOption], rowTopic: null };
  }
  const names: string[] = [];
  const byName = new Map<string, number>();
  const indexOf = (name: string) => {
    let i = byName.get(name);
    if (i === undefined) byName.set(name, (i = names.push(name) - 1));
    return i;
  };
  const rowTopic = new Int32Array(c.numRows);
  // Rows mostly repeat the previous row's topic: compare bytes before decoding a name.
  let lastStart = -1;
  let lastEnd = -1;
  let last = -1;
  for (let i = 0; i < c.numRows; i++) {
    if (t.valid !== null && t.valid[i] === 0) {
      if (topicOption === null) throw new SluiceError(`row ${i} of the batch has a null topic and the sink has no topic option`);
      rowTopic[i] = indexOf(topicOption);
      continue;
    }
    const e = t.indices === null ? i : t.indices[i]!;
    const start = t.offsets[e]!;
    const end = t.offsets[e + 1]!;
    if (last < 0 || !sameBytes(t.bytes, start, end, lastStart, lastEnd)) {
      last = indexOf(utf8.decode(t.bytes.subarray(start, end)));
      lastStart = start;
      lastEnd = end;
    }
    rowTopic[i] = last;
  }
  return { names, rowTopic };
}

function sameBytes(b: Uint8Array, s1: number, e1: number, s2: number, e2: number): boolean {
  if (e1 - s1 !== e2 - s2) return false;
  for (let k = 0; k < e1 - s1; k++) if (b[s1 + k] !== b[s2 + k]) return false;
  return true;
}

export interface TopicLayout {
  readonly name: string;
  readonly numPartitions: number;
  /** Partitions that have a leader, for rows with neither key nor partition. */
  readonly available: readonly number[];
}

/**
 * Where keyless rows of a topic go now, kept by the sink across batches: the run of rows sent
 * there since the last switch, sized as one record batch, so a run fills batches exactly.
 */
export interface StickyPartition {
  partition: number;
  bytes: number;
  count: number;
  turn: number;
}

export interface PlannedBatch {
  readonly topic: string;
  readonly partition: number;
  /** The batch's rows are `rows[from, to)`. */
  readonly rows: Int32Array;
  readonly from: number;
  readonly to: number;
  /** Encoded size in bytes (header included). */
  readonly size: number;
}

export function planBatches(
  c: SinkColumns,
  rowTopic: Int32Array | null,
  topics: readonly TopicLayout[],
  sticky: (topic: string) => StickyPartition,
  maxBatchBytes: number,
): PlannedBatch[] {
  const n = c.numRows;
  const { key, value, partition, headers } = c;
  const headerBytes = (row: number) => (headers === null ? 1 : (headers[row]?.length ?? 1));
  // Groups are topic-partitions: group = base[topic] + partition.
  const base = new Int32Array(topics.length + 1);
  for (let t = 0; t < topics.length; t++) base[t + 1] = base[t]! + topics[t]!.numPartitions;
  const stickies = topics.map((t) => sticky(t.name));
  const group = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const t = rowTopic === null ? 0 : rowTopic[i]!;
    const layout = topics[t]!;
    let p: number;
    if (partition !== null && (partition.valid === null || partition.valid[i] === 1)) {
      p = partition.values[i]!;
      if (!(p >= 0 && p < layout.numPartitions)) {
        throw new SluiceError(`row ${i}: partition ${p} is not a partition of topic "${layout.name}", which has partitions 0 to ${layout.numPartitions - 1}`);
      }
    } else if (key !== null && (key.valid === null || key.valid[i] === 1)) {
      const e = key.indices === null ? i : key.indices[i]!;
      p = partitionForKey(key.bytes, key.offsets[e]!, key.offsets[e + 1]!, layout.numPartitions);
    } else {
      const s = stickies[t]!;
      const valueLength = byteLength(value, i);
      let size = recordSize(-1, valueLength, headerBytes(i), s.count);
      if (s.partition < 0 || s.partition >= layout.numPartitions || (s.count > 0 && s.bytes + size > maxBatchBytes)) {
        const choices = layout.available.length > 0 ? layout.available : null;
        s.partition = choices ? choices[s.turn++ % choices.length]! : s.turn++ % layout.numPartitions;
        s.bytes = BATCH_OVERHEAD;
        s.count = 0;
        size = recordSize(-1, valueLength, headerBytes(i), 0);
      }
      p = s.partition;
      s.bytes += size;
      s.count++;
    }
    group[i] = base[t]! + p;
  }
  // Stable counting sort of rows by group.
  const groups = base[topics.length]!;
  const start = new Int32Array(groups + 1);
  for (let i = 0; i < n; i++) start[group[i]! + 1]!++;
  for (let g = 0; g < groups; g++) start[g + 1]! += start[g]!;
  const rows = new Int32Array(n);
  const fill = start.slice(0, groups);
  for (let i = 0; i < n; i++) rows[fill[group[i]!]!++] = i;
  // Cut each group into batches under maxBatchBytes (a record bigger than that goes alone).
  const out: PlannedBatch[] = [];
  for (let t = 0; t < topics.length; t++) {
    for (let p = 0; p < topics[t]!.numPartitions; p++) {
      const g = base[t]! + p;
      let from = start[g]!;
      const end = start[g + 1]!;
      let size: number = BATCH_OVERHEAD;
      for (let k = from; k < end; k++) {
        const row = rows[k]!;
        const keyLength = key === null ? -1 : byteLength(key, row);
        const valueLength = byteLength(value, row);
        let record = recordSize(keyLength, valueLength, headerBytes(row), k - from);
        if (k > from && size + record > maxBatchBytes) {
          out.push({ topic: topics[t]!.name, partition: p, rows, from, to: k, size });
          from = k;
          size = BATCH_OVERHEAD;
          record = recordSize(keyLength, valueLength, headerBytes(row), 0);
        }
        size += record;
      }
      if (end > from) out.push({ topic: topics[t]!.name, partition: p, rows, from, to: end, size });
    }
  }
  return out;
}
