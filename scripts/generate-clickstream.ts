/**
 * Writes the bundled click-stream sample (fixtures/clickstream/) that `npm start` reads:
 * deterministic pseudo-random page views over 6 minutes of event time, split over 4 files in
 * arrival order, with a few late events and one malformed line so the demo shows both.
 *
 *   npx tsx scripts/generate-clickstream.ts
 */
import { mkdirSync, writeFileSync } from "node:fs";
import * as path from "node:path";

const OUT = path.join(path.dirname(new URL(import.meta.url).pathname), "..", "fixtures", "clickstream");
const PAGES = ["/home", "/search", "/product", "/cart", "/checkout"];
const START = Date.UTC(2026, 2, 1, 10, 0, 0);
const FILES = 4;
const EVENTS_PER_FILE = 1500;

// A small linear congruential generator keeps the sample identical on every machine.
let seed = 42;
function random(): number {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed / 2147483648;
}

mkdirSync(OUT, { recursive: true });
for (let f = 0; f < FILES; f++) {
  const lines: string[] = [];
  for (let i = 0; i < EVENTS_PER_FILE; i++) {
    const progress = (f * EVENTS_PER_FILE + i) / (FILES * EVENTS_PER_FILE);
    // Events arrive roughly in time order; about 2% come 2-3 minutes late.
    const late = random() < 0.02 ? 120_000 + random() * 60_000 : 0;
    const time = START + progress * 360_000 - late;
    const event = {
      user: `u${Math.floor(random() * 200)}`,
      page: PAGES[Math.floor(random() ** 1.5 * PAGES.length)],
      action: random() < 0.8 ? "view" : "click",
      durationMs: Math.round(200 + random() * 5000),
      time: new Date(Math.max(START, time)).toISOString(),
    };
    lines.push(JSON.stringify(event));
  }
  if (f === 2) lines.splice(700, 0, '{"user": "u1", "page": "/home", "action": "view", "durationMs": "fast"}');
  writeFileSync(path.join(OUT, `part-${String(f).padStart(5, "0")}.jsonl`), `${lines.join("\n")}\n`);
}
console.log(`wrote ${FILES} files to ${OUT}`);
