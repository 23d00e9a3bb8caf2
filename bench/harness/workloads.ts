/**
 * The four workloads of `npm run bench`: how their input records are generated (deterministic
 * in the record's index, so the offline reference recomputes them without reading Kafka) and
 * the reference answer. bench/peers/README.md is the contract every system implements.
 */

export type WorkloadName = "W1" | "W2" | "W3" | "W4";
export const WORKLOADS: readonly WorkloadName[] = ["W1", "W2", "W3", "W4"];

/** Event time of the drain topics: 2026-01-01T00:00:00Z plus the record's place in the stream. */
export const BASE_MS = Date.UTC(2026, 0, 1);
export const WATERMARK_DELAY_MS = 1_000;
/**
 * Event time runs from BASE_MS to BASE_MS + SPAN_MS across a drain topic, evenly, whatever its
 * size: the data itself closes the windows that end by BASE_MS + CLOSED_BY_MS (the largest event
 * time minus the 1 s delay passes them by 0.5 s) and leaves the later ones open. No trailing
 * records are needed, so no system sees a record far ahead of the others: Kafka Streams keeps
 * stream time per task, and a task that read such a record first would close windows the other
 * tasks still feed. The half second also absorbs Kafka Streams' per-task stream time lagging the
 * global maximum. 111.5 s of event time give eleven closed 10 s tumbling windows (W2: 51 closed
 * sliding windows), so a drain's figures cover many window closes rather than three. The event
 * rate (about 134,500 events per event-second at 15 M events) keeps the tasks' skew in records
 * well below 1 s of event time.
 */
export const SPAN_MS = 111_500;
export const CLOSED_BY_MS = 110_000;

export const ADS = 1_000;
export const CAMPAIGNS = 100;
const AUCTIONS = 10_000;
const W3_KEYS = 1_000_000;
const EVENT_TYPES = ["view", "click", "purchase"] as const;

/** A 32-bit avalanche hash of (index, stream): the generator's only source of randomness. */
export function mix(i: number, stream: number): number {
  let x = (i * 0x9e3779b1 + stream * 0x85ebca6b) >>> 0;
  x = Math.imul(x ^ (x >>> 16), 0x7feb352d);
  x = Math.imul(x ^ (x >>> 15), 0x846ca68b);
  return (x ^ (x >>> 16)) >>> 0;
}

/** Two hex digits per byte value: the generator makes millions of UUIDs, toString(16) is too slow. */
const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, "0"));
const hex4 = (n: number) => HEX[(n >>> 8) & 255]! + HEX[n & 255]!;

/** A version-4-shaped UUID made from three hashes of `n`. */
function uuid(n: number, stream: number): string {
  const a = mix(n, stream);
  const b = mix(n, stream + 1);
  const c = mix(n, stream + 2);
  return `${hex4(a >>> 16)}${hex4(a)}-${hex4(b >>> 16)}-${hex4((b & 0xfff) | 0x4000)}-${hex4(((c >>> 16) & 0x3fff) | 0x8000)}-${hex4(c)}${hex4(a ^ b)}${hex4(a ^ c)}`;
}

const AD_IDS = Array.from({ length: ADS }, (_, ad) => uuid(ad, 100));
const CAMPAIGN_IDS = Array.from({ length: CAMPAIGNS }, (_, c) => uuid(c, 200));
export const adId = (ad: number) => AD_IDS[ad]!;
export const campaignId = (campaign: number) => CAMPAIGN_IDS[campaign]!;
const campaignOfAd = (ad: number) => Math.floor(ad / (ADS / CAMPAIGNS));

/** The static ads table of W1, as JSON lines. */
export function adsJsonLines(): string {
  const lines: string[] = [];
  for (let ad = 0; ad < ADS; ad++) lines.push(JSON.stringify({ ad_id: adId(ad), campaign_id: campaignId(campaignOfAd(ad)) }));
  return lines.join("\n") + "\n";
}

/** Users and pages come from pools (made once, on first use): building two UUIDs per event would make the generator the limit. */
let users: string[] | null = null;
let pages: string[] | null = null;
const USERS = 1 << 20;
const PAGES = 1 << 16;
const userIdOf = (i: number) => (users ??= Array.from({ length: USERS }, (_, u) => uuid(u, 1)))[mix(i, 1) & (USERS - 1)]!;
const pageIdOf = (i: number) => (pages ??= Array.from({ length: PAGES }, (_, p) => uuid(p, 7)))[mix(i, 7) & (PAGES - 1)]!;
const adOf = (i: number) => mix(i, 4) % ADS;
const eventTypeOf = (i: number) => EVENT_TYPES[mix(i, 5) % 3]!;

function adEventJson(i: number, ts: number, ad = adOf(i), eventType = eventTypeOf(i)): string {
  const ip = mix(i, 10);
  return `{"user_id":"${userIdOf(i)}","page_id":"${pageIdOf(i)}","ad_id":"${adId(ad)}","ad_type":"banner","event_type":"${eventType}","event_time":"${ts}","ip_address":"10.${ip & 255}.${(ip >>> 8) & 255}.${ip >>> 24}"}`;
}

const auctionOf = (i: number) => 1_000 + (mix(i, 20) % AUCTIONS);
function bidJson(i: number, ts: number, auction = auctionOf(i)): string {
  return `{"auction":${auction},"bidder":${mix(i, 21) % 100_000},"price":${mix(i, 22) % 100_000},"channel":"channel-${mix(i, 23) % 4}","url":"https://www.nexmark.com/item.htm?query=${auction}","dateTime":${ts},"extra":""}`;
}

const w3KeyIndex = (i: number) => mix(i, 30) % W3_KEYS;
const w3KeyOf = (i: number) => `k${w3KeyIndex(i)}`;
const w3ValueOf = (i: number) => mix(i, 31) % 1_000;

export interface WorkloadSpec {
  readonly name: WorkloadName;
  readonly title: string;
  /** The input data's name: workloads reading the same data (W1 and W4) share one drain topic. */
  readonly data: string;
  /** Events in the drain topic by default: enough for the fastest system to run over 30 s, with a margin. */
  readonly drainRecords: number;
  /**
   * The latency ladder's seconds per rate by default: enough for several results whose input lies
   * wholly inside the step (bench/README.md, "per-step length"): four tumbling windows (11 s for
   * the first window to lie inside the step, then a close every 10 s: 50 s), ten of W2's windows
   * sliding every 2 s (30 s), and W4's records (every record is a result: 20 s).
   */
  readonly latencyStepSeconds: number;
  /**
   * How far apart results fall due in the latency phase: a tumbling window's length (W1, W3), a
   * sliding window's slide (W2); 0 for W4, where every record is a result. With the step's warm-up
   * it sets the shortest step that surely holds one (harness/latency.ts, `minStepSeconds`).
   */
  readonly resultEveryMs: number;
  /**
   * How often the latency phase's paced feed sends what is due (harness/generate.ts). What one
   * tick sends reaches the broker as one burst, and a system's latency cannot be lower than the
   * time it needs to work through a burst: at 50,000 records/s a 50 ms tick is 2,500 records
   * appended in the same millisecond. Window results wait seconds for their watermark, so W1-W3
   * keep 50 ms ticks (cheap for the feed beside the system under test); W4 measures each record's
   * latency, and its feed sends every 5 ms, the pace of a Kafka Java producer at its defaults
   * (`linger.ms` 5 since Kafka 4.0): at 50,000 records/s one 250-record batch a tick.
   */
  readonly feedTickMs: number;
  /** Record i's JSON value, given its event time. */
  value(i: number, ts: number): string;
  /** The offline answer: each result row's canonical text, with its multiplicity. */
  reference(count: number): Map<string, number>;
  /** A parsed output value's canonical text (the same shape `reference` uses). */
  canonical(out: Record<string, unknown>): string;
}

/** Event time of record i of a drain topic of `count` records. */
export function eventTime(i: number, count: number): number {
  return BASE_MS + Math.floor((i * SPAN_MS) / (count - 1));
}

const tumbling = (ts: number) => Math.floor(ts / 10_000) * 10_000;

/** Count (and sum) per (window start, integer key), keyed by one number: the reference's hot loop makes no strings. */
class WindowCounts {
  private readonly counts = new Map<number, number>();
  private readonly sums = new Map<number, number>();

  add(windowStart: number, key: number, value: number): void {
    // Window starts are multiples of 2 s from at most 8 s before BASE_MS: (index + 8) * 2^24 + key stays exact.
    const k = ((windowStart - BASE_MS) / 2_000 + 8) * 2 ** 24 + key;
    this.counts.set(k, (this.counts.get(k) ?? 0) + 1);
    this.sums.set(k, (this.sums.get(k) ?? 0) + value);
  }

  /** Canonical rows of the windows the data closes: `start|end|key|count[|sum]`. */
  rows(keyText: (key: number) => string, withSum: boolean): Map<string, number> {
    const out = new Map<string, number>();
    for (const [k, n] of this.counts) {
      const start = (Math.floor(k / 2 ** 24) - 8) * 2_000 + BASE_MS;
      if (start + 10_000 > BASE_MS + CLOSED_BY_MS) continue;
      const row = `${start}|${start + 10_000}|${keyText(k % 2 ** 24)}|${n}`;
      add(out, withSum ? `${row}|${this.sums.get(k)}` : row);
    }
    return out;
  }
}

const windowRow = (o: Record<string, unknown>) => `${o.window_start}|${o.window_end}|${o.key}|${o.count}`;

function add(map: Map<string, number>, key: string, by = 1): void {
  map.set(key, (map.get(key) ?? 0) + by);
}

const W1: WorkloadSpec = {
  name: "W1",
  feedTickMs: 50,
  latencyStepSeconds: 50,
  resultEveryMs: 10_000,
  data: "ad-events",
  drainRecords: 25_000_000,
  title: "Yahoo streaming benchmark: filter views, join ad -> campaign, 10 s tumbling count per campaign",
  value: (i, ts) => adEventJson(i, ts),
  reference(count) {
    const perWindow = new WindowCounts();
    for (let i = 0; i < count; i++) {
      if (eventTypeOf(i) === "view") perWindow.add(tumbling(eventTime(i, count)), campaignOfAd(adOf(i)), 0);
    }
    return perWindow.rows((c) => campaignId(c), false);
  },
  canonical: windowRow,
};

const W2: WorkloadSpec = {
  name: "W2",
  feedTickMs: 50,
  latencyStepSeconds: 30,
  resultEveryMs: 2_000,
  data: "bids",
  drainRecords: 25_000_000,
  title: "Nexmark q5 shape: bids, 10 s windows sliding every 2 s, count per auction",
  value: (i, ts) => bidJson(i, ts),
  reference(count) {
    const perWindow = new WindowCounts();
    for (let i = 0; i < count; i++) {
      const ts = eventTime(i, count);
      const auction = auctionOf(i);
      for (let start = Math.floor(ts / 2_000) * 2_000; start > ts - 10_000; start -= 2_000) perWindow.add(start, auction, 0);
    }
    return perWindow.rows(String, false);
  },
  canonical: windowRow,
};

const W3: WorkloadSpec = {
  name: "W3",
  feedTickMs: 50,
  latencyStepSeconds: 50,
  resultEveryMs: 10_000,
  data: "keyed-values",
  drainRecords: 15_000_000,
  title: "high cardinality: 1,000,000 keys, 10 s tumbling count and sum per key",
  value: (i) => `{"key":"${w3KeyOf(i)}","value":${w3ValueOf(i)}}`,
  reference(count) {
    const perWindow = new WindowCounts();
    for (let i = 0; i < count; i++) perWindow.add(tumbling(eventTime(i, count)), w3KeyIndex(i), w3ValueOf(i));
    return perWindow.rows((k) => `k${k}`, true);
  },
  canonical: (o) => `${windowRow(o)}|${o.sum}`,
};

const W4: WorkloadSpec = {
  name: "W4",
  feedTickMs: 5,
  latencyStepSeconds: 20,
  resultEveryMs: 0,
  data: "ad-events",
  drainRecords: 20_000_000,
  title: "stateless: parse, filter views, project, Kafka -> Kafka",
  value: (i, ts) => adEventJson(i, ts),
  reference(count) {
    const out = new Map<string, number>();
    for (let i = 0; i < count; i++) {
      if (eventTypeOf(i) === "view") add(out, `${userIdOf(i)}|${adId(adOf(i))}|${eventTime(i, count)}`);
    }
    return out;
  },
  canonical: (o) => `${o.user_id}|${o.ad_id}|${o.ts}`,
};

export const SPECS: Readonly<Record<WorkloadName, WorkloadSpec>> = { W1, W2, W3, W4 };
