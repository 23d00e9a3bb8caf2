import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { TerminalStream } from "../testing/terminal-stream.js";
import { renderProgressLine } from "./console-progress-line.js";
import { ConsoleProgressBar, ERASE_LINE } from "./console-progress.js";

/** A bar on `terminal` redrawn every 2 ms, whose clock the test sets (the timer itself is real). */
function barOn(terminal: TerminalStream, options: { firstDelayMs?: number; enabled?: boolean } = {}) {
  const clock = { ms: 0 };
  const bar = new ConsoleProgressBar(
    () => ({ terminal, firstDelayMs: options.firstDelayMs ?? 500 }),
    () => ({ enabled: options.enabled ?? true, updateIntervalMs: 2 }),
    () => clock.ms,
  );
  return { bar, clock };
}

/** Long enough for the 2 ms timer to fire several times. */
const ticks = () => sleep(30);

describe("ConsoleProgressBar", () => {
  it("draws work once it has run 500 ms, redraws only what changed, and erases itself when the work ends", async () => {
    const terminal = new TerminalStream(true, 81);
    const { bar, clock } = barOn(terminal);
    const work = bar.begin("collect", { files: 4, bytes: 4000, tasks: 4 });
    expect(work.shown).toBe(true);
    await ticks();
    expect(terminal.chunks).toEqual([]);

    clock.ms = 1000;
    work.advance({ tasks: 1, files: 1, bytes: 1000, rows: 250 });
    await ticks();
    expect(terminal.chunks).toEqual(["\r[collect: ===>           ] 25% 1/4 files, 250 rows, 1.0 kB, 250 rows/s, ETA 0:03\x1b[K"]);

    work.end();
    work.end();
    expect(terminal.chunks.at(-1)).toBe(ERASE_LINE);
    const written = terminal.chunks.length;
    await ticks();
    expect(terminal.chunks).toHaveLength(written);
  });

  it("writes nothing for work that ends before the first delay, not even an erasure", async () => {
    const terminal = new TerminalStream(true);
    const { bar } = barOn(terminal);
    const work = bar.begin("count", { rows: 10 });
    await ticks();
    work.end();
    await ticks();
    expect(terminal.chunks).toEqual([]);
  });

  it("steps aside for other console output: erased before it, drawn again after it", async () => {
    const terminal = new TerminalStream(true, 61);
    const { bar, clock } = barOn(terminal, { firstDelayMs: 0 });
    clock.ms = 2000;
    const work = bar.begin("availableNow query q", { rows: 100 });
    clock.ms = 3000;
    work.advance({ rows: 40, tasks: 1 });
    await ticks();
    const frame = "\r[availableNow query q: ====>     ] 40% 40/100 rows, ETA 0:02\x1b[K";
    expect(terminal.chunks).toEqual([frame]);
    expect(bar.aside(() => terminal.write("Batch: 0\n"))).toBe(true);
    expect(terminal.chunks).toEqual([frame, ERASE_LINE, "Batch: 0\n", frame]);
    work.end();
    bar.aside(() => terminal.write("done\n"));
    expect(terminal.chunks.slice(4)).toEqual([ERASE_LINE, "done\n"]);
  });

  it("shows up to three works on one line, each in its share of the width, as Spark shows stages", async () => {
    const terminal = new TerminalStream(true, 121);
    const { bar, clock } = barOn(terminal, { firstDelayMs: 0 });
    const works = ["a", "b", "c", "d"].map((label) => bar.begin(label, { tasks: 2 }));
    works.forEach((w, i) => w.advance({ tasks: i % 2 }));
    clock.ms = 1000;
    await ticks();
    const line = (label: string, tasks: number) =>
      renderProgressLine({ label, done: { files: 0, bytes: 0, rows: 0, tasks }, total: { tasks: 2 }, elapsedMs: 1000 }, 40);
    expect(terminal.frames.at(-1)).toBe(line("a", 0) + line("b", 1) + line("c", 0));
    works[0]!.end();
    await ticks();
    expect(terminal.frames.at(-1)).toBe(line("b", 1) + line("c", 0) + line("d", 1));
    works.slice(1).forEach((w) => w.end());
    expect(terminal.chunks.at(-1)).toBe(ERASE_LINE);
  });

  it("draws nothing when the stream is not a terminal or spark.ui.showConsoleProgress is off", async () => {
    const pipe = new TerminalStream(false);
    const terminal = new TerminalStream(true);
    for (const { bar, clock } of [barOn(pipe, { firstDelayMs: 0 }), barOn(terminal, { firstDelayMs: 0, enabled: false })]) {
      const work = bar.begin("collect", { tasks: 1 });
      expect(work.shown).toBe(false);
      clock.ms = 1000;
      work.advance({ tasks: 1 });
      await ticks();
      work.end();
    }
    expect(pipe.chunks).toEqual([]);
    expect(terminal.chunks).toEqual([]);
  });
});
