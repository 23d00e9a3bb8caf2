import { execFileSync, spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import * as path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Session } from "../api/session.js";
import { MalformedRecordError } from "../errors/errors.js";
import { tempDirs } from "../testing/temp-dirs.js";
import { TerminalStream } from "../testing/terminal-stream.js";
import { ERASE_LINE } from "./console-progress.js";

const Click = z.object({ user: z.string(), page: z.string(), durationMs: z.int32() });

const tempFolder = tempDirs();

/** `files` JSON-lines files of `rowsPerFile` clicks each. */
function clickFiles(files: number, rowsPerFile: number) {
  const d = tempFolder();
  for (let f = 0; f < files; f++) {
    d.write(`part-${String(f).padStart(3, "0")}.jsonl`, Array.from({ length: rowsPerFile }, (_, i) => ({ user: `u${i % 97}`, page: `/p${f}`, durationMs: i })));
  }
  return d.dir;
}

/**
 * A session whose progress bar draws on `terminal` from the first moment (no 500 ms wait) and
 * redraws every millisecond. One worker thread: the driver only waits on it, so the bar's timer
 * fires while tasks run, as in a real session.
 */
function sessionOn(terminal: TerminalStream, conf: Record<string, unknown> = {}) {
  const session = new Session({ workers: 1, conf: { "spark.ui.consoleProgress.update.interval": 1, ...conf } });
  session.progressOutput = { terminal, firstDelayMs: 0 };
  return session;
}

/** `[label: ====>   ] 37% 12/40 files, 250k rows, 3.1 MB, 410k rows/s, ETA 0:01` (no rate in the first millisecond), with the files read. */
function framePattern(label: string, files: number): RegExp {
  return new RegExp(`^\\[${label}: [=> ]{10,}\\] \\d{1,3}% (\\d+)/${files} files, [\\d.]+[kM]? rows, [\\d.]+ [kM]?B(, [\\d.]+[kM]? rows/s)?(, ETA \\d+:\\d\\d)?$`);
}

const filesRead = (frame: string, pattern: RegExp) => Number(pattern.exec(frame)![1]);

describe("progress bars on a terminal", () => {
  it("collect() over 40 files draws files, rows, bytes, rate and ETA as tasks complete, then erases the bar", async () => {
    const terminal = new TerminalStream(true, 100);
    const session = sessionOn(terminal);
    try {
      const rows = await session.read.schema(Click).json(clickFiles(40, 2000)).collect();
      expect(rows).toHaveLength(80_000);
    } finally {
      await session.stop();
    }
    const pattern = framePattern("collect", 40);
    const frames = terminal.frames;
    expect(frames.length).toBeGreaterThan(0);
    for (const frame of frames) {
      expect(frame).toMatch(pattern);
      expect(frame.length).toBe(99);
    }
    const read = frames.map((f) => filesRead(f, pattern));
    expect(read).toEqual([...read].sort((a, b) => a - b));
    expect(terminal.text.endsWith(ERASE_LINE)).toBe(true);
    expect(terminal.chunks.filter((c) => c === ERASE_LINE)).toHaveLength(1);
  });

  it("draws nothing when stderr is not a terminal, or when spark.ui.showConsoleProgress is false", async () => {
    const dir = clickFiles(10, 500);
    const pipe = new TerminalStream(false);
    const terminal = new TerminalStream(true);
    for (const session of [sessionOn(pipe), sessionOn(terminal, { "spark.ui.showConsoleProgress": false })]) {
      try {
        expect(await session.read.schema(Click).json(dir).count()).toBe(5000);
      } finally {
        await session.stop();
      }
    }
    expect(pipe.chunks).toEqual([]);
    expect(terminal.chunks).toEqual([]);
  });

  it("an availableNow drain of 12 files shows k/12 files from its first batch, and listeners print with the bar erased", async () => {
    const terminal = new TerminalStream(true, 120);
    const session = sessionOn(terminal);
    const printed: string[] = [];
    session.streams.addListener({
      onQueryProgress: ({ progress }) => {
        const line = `progress: batch ${progress.batchId}\n`;
        printed.push(line);
        terminal.write(line);
      },
    });
    try {
      const query = session.readStream
        .schema(Click)
        .option("maxFilesPerTrigger", 1)
        .json(clickFiles(12, 2000))
        .writeStream.format("memory")
        .queryName("drain")
        .trigger({ availableNow: true })
        .start();
      await query.awaitTermination();
      expect(query.recentProgress).toHaveLength(12);
    } finally {
      await session.stop();
    }
    const pattern = framePattern("availableNow query drain", 12);
    const frames = terminal.frames;
    for (const frame of frames) expect(frame).toMatch(pattern);
    const read = frames.map((f) => filesRead(f, pattern));
    expect(read).toEqual([...read].sort((a, b) => a - b));
    expect(read.some((k) => k >= 1 && k <= 12)).toBe(true);
    // Each listener line comes after the bar was erased, never straight after a frame.
    const { chunks } = terminal;
    expect(chunks.filter((c) => printed.includes(c))).toEqual(printed);
    const isFrame = (c: string | undefined) => c !== undefined && c.startsWith("\r") && c !== ERASE_LINE;
    expect(chunks.filter((c, i) => printed.includes(c) && isFrame(chunks[i - 1]))).toEqual([]);
    expect(terminal.text.endsWith(ERASE_LINE)).toBe(true);
  });
});

describe("progress bars of work that fails or is stopped", () => {
  /** Whatever was drawn is erased, and nothing is drawn any more: the bar's timer is gone. */
  async function expectClearedForGood(terminal: TerminalStream) {
    expect(terminal.frames.length).toBeGreaterThan(0);
    expect(terminal.text.endsWith(ERASE_LINE)).toBe(true);
    const written = terminal.chunks.length;
    await sleep(50);
    expect(terminal.chunks).toHaveLength(written);
  }

  it("a collect() that fails on a malformed record (FAILFAST) erases its bar", async () => {
    const terminal = new TerminalStream(true);
    const session = sessionOn(terminal);
    const dir = clickFiles(8, 2000);
    writeFileSync(path.join(dir, "part-999.jsonl"), '{"user": "u1", "page": "/p", "durationMs": "long"}\n');
    try {
      await expect(session.read.schema(Click).option("mode", "FAILFAST").json(dir).collect()).rejects.toThrow(MalformedRecordError);
    } finally {
      await session.stop();
    }
    await expectClearedForGood(terminal);
  });

  it("an availableNow drain stopped after its first batch erases its bar", async () => {
    const terminal = new TerminalStream(true);
    const session = sessionOn(terminal);
    try {
      const query = session.readStream
        .schema(Click)
        .option("maxFilesPerTrigger", 1)
        .json(clickFiles(12, 2000))
        .writeStream.format("memory")
        .queryName("stopped")
        .trigger({ availableNow: true })
        .start();
      await new Promise<void>((resolve) => session.streams.addListener({ onQueryProgress: () => resolve() }));
      await query.stop();
      expect(query.recentProgress.length).toBeLessThan(12);
    } finally {
      await session.stop();
    }
    await expectClearedForGood(terminal);
  });
});

describe("progress bars in a real terminal", () => {
  const child = fileURLToPath(new URL("../testing/progress-child.ts", import.meta.url));
  const command = (dir: string) => [process.execPath, "--import", "tsx", child, JSON.stringify({ dir })];

  it("draws on stderr when it is a pseudo-terminal (util-linux script), erased before each console sink table, and not when it is a pipe", () => {
    const dir = clickFiles(20, 2000);
    const quoted = command(dir)
      .map((arg) => `'${arg}'`)
      .join(" ");
    // In the terminal stdout and stderr meet on one screen, as they do for a user.
    const inTerminal = execFileSync("script", ["-qec", quoted, "/dev/null"], { encoding: "utf8", timeout: 60_000 });
    expect(inTerminal).toContain("COUNT 40000");
    expect(inTerminal).toMatch(/\r\[count: [=> ]+\] \d+% \d+\/20 files, /);
    expect(inTerminal).toMatch(/\r\[availableNow query [0-9a-f]{8}: [=> ]+\] \d+% \d+\/20 files, /);
    expect(inTerminal).toContain(ERASE_LINE);
    const rule = "-------------------------------------------\r\nBatch: ";
    const tables = inTerminal.split(rule).slice(0, -1);
    expect(tables).toHaveLength(4);
    // Before each table: the end of a line, or the bar erased; never a bar still drawn.
    for (const before of tables) expect(before.endsWith("\n") || before.endsWith(ERASE_LINE)).toBe(true);
    expect(inTerminal.trimEnd().endsWith("DONE")).toBe(true);

    const [node, ...args] = command(dir);
    const piped = spawnSync(node!, args, { encoding: "utf8", timeout: 60_000 });
    expect(piped.stdout.startsWith("COUNT 40000\n-------------------------------------------\nBatch: 0\n")).toBe(true);
    expect(piped.stdout.endsWith("DONE\n")).toBe(true);
    expect(piped.stderr).toBe("");
    // Two Node processes that each start a worker thread: slower than the unit tests' 30 s allow on a busy machine.
  }, 120_000);
});
