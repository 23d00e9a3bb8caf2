/**
 * The naive benchmark peer: W1–W4 (bench/peers/README.md) as a TypeScript team writes them by hand
 * today. One kafkajs consumer with `eachMessage` (`--variant eachBatch`: `eachBatch`, a fetched
 * partition's batch per call), `JSON.parse` per record, open windows in a `Map`, a watermark 1 s
 * behind the record timestamps, results through one kafkajs producer.
 *
 * The watermark is the smallest, over the input's partitions, of the largest timestamp seen in that
 * partition, minus 1 s. kafkajs hands over a fetch partition by partition (megabytes of one
 * partition, then of the next), so the largest timestamp over all partitions runs seconds ahead of
 * the partitions not yet read and would close windows they still hold records for.
 * NAIVE_WATERMARK=global uses that largest timestamp over all partitions instead (it drops records
 * whenever one fetch holds more than about a second of event time per partition).
 *
 *   bench/peers/naive/launch --workload W3 --bootstrap 127.0.0.1:19092 --input in --output out \
 *       --ads ads.jsonl --state-dir /tmp/empty --run-id r1
 */
import { readFileSync } from "node:fs";
import { Kafka, logLevel, Partitioners, type KafkaMessage, type Message } from "kafkajs";

const WATERMARK_DELAY_MS = 1_000;
const WINDOW_MS = 10_000;
const SLIDE_MS = 2_000; // W2
// Output messages per producer.send. kafkajs groups a send's messages by partition in time quadratic
// in their number, so bigger sends get slower per message; one send is in flight while the next fills.
const CHUNK = 1_000;
const LINGER_MS = 100; // longest time a result waits in the output buffer

function fatal(reason: unknown): never {
  process.stderr.write(`naive: fatal: ${reason instanceof Error ? (reason.stack ?? reason.message) : String(reason)}\n`);
  process.exit(1);
}
process.on("unhandledRejection", fatal);
process.on("uncaughtException", fatal);

// ---- arguments -----------------------------------------------------------------------------------

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i++) {
  const name = process.argv[i]!;
  const value = process.argv[i + 1];
  if (!name.startsWith("--") || value === undefined) fatal(`bad argument ${JSON.stringify(name)}; usage: --workload W1|W2|W3|W4 --bootstrap host:port --input T --output T --ads F --state-dir D --run-id ID`);
  args.set(name.slice(2), value);
  i++;
}
const arg = (name: string): string => args.get(name) ?? fatal(`missing --${name}`);
const workload = arg("workload");
if (!["W1", "W2", "W3", "W4"].includes(workload)) fatal(`unknown workload ${workload}`);
const bootstrap = arg("bootstrap");
const inputTopic = arg("input");
const outputTopic = arg("output");
const runId = arg("run-id");
// --phase (drain or latency) changes nothing here: results leave within LINGER_MS either way.
const variant = args.get("variant") ?? "eachMessage";
if (variant !== "eachMessage" && variant !== "eachBatch") fatal(`unknown --variant ${variant}: use eachMessage or eachBatch`);
const globalWatermark = process.env.NAIVE_WATERMARK === "global";
if (!["global", "partitions", undefined].includes(process.env.NAIVE_WATERMARK)) fatal(`NAIVE_WATERMARK must be global or partitions`);

// W1's static table ad_id -> campaign_id.
const campaignOf = new Map<string, string>();
if (workload === "W1") {
  for (const line of readFileSync(arg("ads"), "utf8").split("\n")) {
    if (line.trim() === "") continue;
    const ad = JSON.parse(line) as { ad_id: string; campaign_id: string };
    campaignOf.set(ad.ad_id, ad.campaign_id);
  }
}

// ---- Kafka ---------------------------------------------------------------------------------------

// Everything kafkajs logs goes to stderr: stdout carries only the BENCH_STARTED line.
const kafka = new Kafka({
  clientId: `naive-${runId}`,
  brokers: bootstrap.split(","),
  logLevel: logLevel.ERROR,
  logCreator: () => ({ namespace, log }) => process.stderr.write(`kafkajs ${namespace}: ${log.message}\n`),
});
const consumer = kafka.consumer({
  groupId: `naive-${runId}`,
  maxBytesPerPartition: 4 * 1024 * 1024,
  maxBytes: 16 * 1024 * 1024,
  // Open windows live in memory, so a restarted consumer would count records twice: a crash is fatal.
  retry: { restartOnFailure: async () => false },
});
const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });

// ---- output buffer -------------------------------------------------------------------------------

let outBuffer: Message[] = [];
let inFlight: Promise<void> = Promise.resolve();

/** Starts sending what is buffered (after the previous send); resolves when it is written. */
function flush(): Promise<void> {
  if (outBuffer.length === 0) return inFlight;
  const messages = outBuffer;
  outBuffer = [];
  const previous = inFlight;
  inFlight = (async () => {
    await previous;
    await producer.send({ topic: outputTopic, messages });
  })();
  inFlight.catch(fatal);
  return inFlight;
}

/** Buffers one result; when the buffer is full, waits for the previous send and starts the next one. */
async function emit(value: object): Promise<void> {
  outBuffer.push({ value: JSON.stringify(value) });
  if (outBuffer.length >= CHUNK) {
    await inFlight; // at most one send in flight: backpressure on the consumer loop
    void flush();
  }
}

// ---- windows -------------------------------------------------------------------------------------

type Agg = { count: number; sum: number };
/** Open windows: window start -> key -> aggregate. */
const windows = new Map<number, Map<string, Agg>>();
let maxTimestamp = -Infinity; // over all partitions (NAIVE_WATERMARK=global)
let partitionMax: number[] = []; // the largest timestamp per input partition, -Infinity until its first record
let watermark = -Infinity;
let nextEnd = Infinity; // the smallest end among the open windows
let records = 0;
let dropped = 0; // (record, window) pairs whose window had closed

function add(start: number, key: string, value: number): void {
  if (start + WINDOW_MS <= watermark) {
    // This window has closed (and was emitted): the record is late for it.
    if (dropped++ === 0) process.stderr.write(`naive: dropping a record for the closed window starting at ${start} (watermark ${watermark})\n`);
    return;
  }
  let open = windows.get(start);
  if (open === undefined) {
    open = new Map();
    windows.set(start, open);
    if (start + WINDOW_MS < nextEnd) nextEnd = start + WINDOW_MS;
  }
  const agg = open.get(key);
  if (agg === undefined) open.set(key, { count: 1, sum: value });
  else {
    agg.count++;
    agg.sum += value;
  }
}

/** Emits and forgets every window whose end the watermark has reached, in window-end order. */
async function closeWindows(): Promise<void> {
  const starts = [...windows.keys()].filter((s) => s + WINDOW_MS <= watermark).sort((a, b) => a - b);
  for (const start of starts) {
    const end = start + WINDOW_MS;
    for (const [key, agg] of windows.get(start)!) {
      await emit(workload === "W3" ? { window_start: start, window_end: end, key, count: agg.count, sum: agg.sum } : { window_start: start, window_end: end, key, count: agg.count });
    }
    windows.delete(start);
  }
  nextEnd = Infinity;
  for (const s of windows.keys()) if (s + WINDOW_MS < nextEnd) nextEnd = s + WINDOW_MS;
}

// ---- workloads -----------------------------------------------------------------------------------

type AdEvent = { user_id: string; ad_id: string; event_type: string };
type Bid = { auction: number };
type KeyValue = { key: string; value: number };

function handle(value: string, ts: number): Promise<void> | undefined {
  switch (workload) {
    case "W1": {
      const e = JSON.parse(value) as AdEvent;
      if (e.event_type !== "view") return;
      const campaign = campaignOf.get(e.ad_id);
      if (campaign === undefined) return; // inner join
      add(Math.floor(ts / WINDOW_MS) * WINDOW_MS, campaign, 0);
      return;
    }
    case "W2": {
      const b = JSON.parse(value) as Bid;
      const key = String(b.auction);
      const last = Math.floor(ts / SLIDE_MS) * SLIDE_MS; // starts are multiples of the slide
      for (let start = last - WINDOW_MS + SLIDE_MS; start <= last; start += SLIDE_MS) add(start, key, 0);
      return;
    }
    case "W3": {
      const r = JSON.parse(value) as KeyValue;
      add(Math.floor(ts / WINDOW_MS) * WINDOW_MS, r.key, r.value);
      return;
    }
    default: {
      const e = JSON.parse(value) as AdEvent;
      if (e.event_type !== "view") return;
      return emit({ user_id: e.user_id, ad_id: e.ad_id, ts });
    }
  }
}

// ---- run -----------------------------------------------------------------------------------------

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  process.stderr.write(`naive: ${signal}: ${records} records, ${dropped} (record, window) pairs dropped as late, ${windows.size} windows open\n`);
  const timeout = new Promise<void>((resolve) => setTimeout(resolve, 3_000).unref());
  await Promise.race([
    Promise.allSettled([consumer.disconnect(), flush().then(() => producer.disconnect())]),
    timeout,
  ]);
  process.exit(0);
}
process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGINT", () => void shutdown("SIGINT"));

consumer.on(consumer.events.CRASH, (e) => fatal(e.payload.error));
// A fetched batch is done: send its results now rather than at the next timer tick.
consumer.on(consumer.events.END_BATCH_PROCESS, () => void flush());
setInterval(() => void flush(), LINGER_MS);

const admin = kafka.admin();
await admin.connect();
const metadata = await admin.fetchTopicMetadata({ topics: [inputTopic] });
await admin.disconnect();
partitionMax = metadata.topics[0]!.partitions.map(() => -Infinity);

await producer.connect();
await consumer.connect();
await consumer.subscribe({ topics: [inputTopic], fromBeginning: true });

/**
 * One record: move the watermark, apply it, emit the windows it closes. Returns a promise only
 * when there is something to wait for (an output send), so a batch loop awaits nothing per record.
 */
function onRecord(partition: number, message: KafkaMessage): Promise<void> | undefined {
  records++;
  const ts = Number(message.timestamp);
  if (globalWatermark) {
    if (ts > maxTimestamp) {
      maxTimestamp = ts;
      watermark = ts - WATERMARK_DELAY_MS;
    }
  } else if (ts > partitionMax[partition]!) {
    partitionMax[partition] = ts;
    watermark = Math.min(...partitionMax) - WATERMARK_DELAY_MS;
  }
  const pending = handle(message.value!.toString(), ts);
  if (pending !== undefined) return pending.then(() => (watermark >= nextEnd ? closeWindows() : undefined));
  return watermark >= nextEnd ? closeWindows() : undefined;
}

process.stdout.write(`BENCH_STARTED ${Date.now()}\n`);
// Bad input is not retried: kafkajs would re-deliver it and then crash anyway.
if (variant === "eachMessage") {
  await consumer.run({
    eachMessage: async ({ partition, message }) => {
      try {
        await onRecord(partition, message);
      } catch (e) {
        fatal(e);
      }
    },
  });
} else {
  // eachBatch: one call per fetched partition batch, offsets resolved once for the whole batch
  // (eachBatchAutoResolve) rather than per message.
  await consumer.run({
    eachBatch: async ({ batch }) => {
      try {
        for (const message of batch.messages) {
          const pending = onRecord(batch.partition, message);
          if (pending !== undefined) await pending;
        }
      } catch (e) {
        fatal(e);
      }
    },
  });
}
