/**
 * Sluice at two commits, side by side: the drain phase of `npm run bench` for Sluice alone, run
 * from a clean checkout of each commit in interleaved repetitions (base, head, base, head ...)
 * against the same broker and topics. It answers "did this change slow Sluice down?" with a ratio
 * measured in one run on one machine, which figures committed on another machine cannot.
 *
 *   npm run bench:compare -- --base dab5ce6 --workload W1,W3 --reps 3
 *   npm run bench:compare -- --base v0.1.0 --head main --workload W2
 *
 * Results: bench/results/compare-<base>-<head>.{json,md}.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { z } from "zod";
import { median } from "./harness/stats.js";
import { ROOT } from "./harness/systems.js";
import { WORKLOADS, type WorkloadName } from "./harness/workloads.js";

const Options = z
  .object({
    base: z.string().min(1),
    head: z.string().min(1).default("HEAD"),
    workload: z
      .string()
      .default("W1,W3")
      .transform((s, ctx) => {
        const picked = s.split(",").map((w) => w.trim());
        const bad = picked.filter((w) => !WORKLOADS.includes(w as WorkloadName));
        if (bad.length) ctx.addIssue({ code: "custom", message: `unknown workload ${bad.join(", ")}: use ${WORKLOADS.join(", ")}` });
        return picked as WorkloadName[];
      }),
    reps: z.coerce.number().int().min(1).default(3),
  })
  .strict();

function parseArgs(argv: readonly string[]): z.infer<typeof Options> {
  const raw: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const m = /^--([a-z-]+)(?:=(.*))?$/.exec(argv[i]!);
    if (!m) throw new Error(`unexpected argument "${argv[i]}": options are --name value`);
    raw[m[1]!] = m[2] ?? argv[++i] ?? "";
  }
  const parsed = Options.safeParse(raw);
  if (!parsed.success) throw new Error(parsed.error.issues.map((i) => `--${i.path.join(".")}: ${i.message}`).join("; "));
  return parsed.data;
}

const log = (line: string) => console.log(`[compare ${new Date().toISOString().slice(11, 19)}] ${line}`);
const git = (...args: string[]) => execFileSync("git", ["-C", ROOT, ...args], { encoding: "utf8" }).trim();

/**
 * A clean checkout of `commit` under .cache/bench-compare, sharing this checkout's node_modules
 * and Kafka cache (so both sides use one broker, one set of topics and the same dependencies).
 */
function checkout(commit: string): string {
  const dir = path.join(ROOT, ".cache", "bench-compare", commit);
  if (!existsSync(dir)) {
    mkdirSync(path.dirname(dir), { recursive: true });
    git("worktree", "add", "--detach", dir, commit);
    symlinkSync(path.join(ROOT, "node_modules"), path.join(dir, "node_modules"));
    mkdirSync(path.join(dir, ".cache"), { recursive: true });
    symlinkSync(path.join(ROOT, ".cache", "kafka"), path.join(dir, ".cache", "kafka"));
  }
  return dir;
}

interface Run {
  readonly side: "base" | "head";
  readonly workload: WorkloadName;
  readonly rep: number;
  readonly seconds: number;
  readonly recordsPerSecond: number;
  readonly cpuSeconds: number;
  readonly recordsPerCpuSecond: number;
  readonly peakRssMiB: number;
}

const DrainRow = z.object({
  system: z.literal("sluice"),
  status: z.string(),
  seconds: z.number(),
  recordsPerSecond: z.number(),
  cpuSeconds: z.number(),
  recordsPerCpuSecond: z.number(),
  peakRssMiB: z.number(),
});

/** One drain repetition of Sluice at the checkout `dir`, through that commit's own bench runner. */
function drainOnce(dir: string, workload: WorkloadName): z.infer<typeof DrainRow> {
  const r = spawnSync(
    process.execPath,
    ["--max-old-space-size=12288", "--import", "tsx", "bench/run.ts", "--workload", workload, "--systems", "sluice", "--phases", "drain", "--reps", "1"],
    { cwd: dir, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] },
  );
  if (r.status !== 0) throw new Error(`the bench at ${dir} failed (exit ${r.status}):\n${r.stdout}`);
  const results = JSON.parse(readFileSync(path.join(dir, "bench", "results", `${workload}.json`), "utf8")) as { drain: unknown[] };
  const row = DrainRow.parse(results.drain[0]);
  if (row.status !== "ok") throw new Error(`${workload} at ${dir}: the drain run ended "${row.status}"`);
  return row;
}

function main(): void {
  const o = parseArgs(process.argv.slice(2));
  const sides = { base: git("rev-parse", "--short", o.base), head: git("rev-parse", "--short", o.head) };
  const dirs = { base: checkout(sides.base), head: checkout(sides.head) };
  const runs: Run[] = [];
  for (let rep = 1; rep <= o.reps; rep++) {
    for (const workload of o.workload) {
      for (const side of ["base", "head"] as const) {
        const row = drainOnce(dirs[side], workload);
        runs.push({ side, workload, rep, ...row });
        log(`${workload} ${side} (${sides[side]}) rep ${rep}: ${(row.recordsPerSecond / 1000).toFixed(0)} k rec/s, ${row.cpuSeconds.toFixed(1)} CPU-s`);
      }
    }
  }
  const summary = o.workload.map((workload) => {
    const of = (side: "base" | "head", key: "recordsPerSecond" | "recordsPerCpuSecond") => median(runs.filter((r) => r.workload === workload && r.side === side).map((r) => r[key]));
    return {
      workload,
      base: { recordsPerSecond: of("base", "recordsPerSecond"), recordsPerCpuSecond: of("base", "recordsPerCpuSecond") },
      head: { recordsPerSecond: of("head", "recordsPerSecond"), recordsPerCpuSecond: of("head", "recordsPerCpuSecond") },
    };
  });
  const name = `compare-${sides.base}-${sides.head}`;
  const out = path.join(ROOT, "bench", "results");
  writeFileSync(path.join(out, `${name}.json`), `${JSON.stringify({ base: sides.base, head: sides.head, reps: o.reps, finishedAt: new Date().toISOString(), runs, summary }, null, 2)}\n`);
  const k = (n: number) => `${Math.round(n).toLocaleString("en-US")}`;
  const pct = (head: number, base: number) => `${head >= base ? "+" : ""}${((head / base - 1) * 100).toFixed(1)}%`;
  const lines = [
    `# Sluice ${sides.head} against ${sides.base}`,
    "",
    `Written by \`npm run bench:compare\` (bench/compare-commits.ts): the drain phase of \`npm run bench\` for Sluice alone, ${o.reps} interleaved repetitions (base, head, base, head ...) per workload, medians. Finished ${new Date().toISOString()}.`,
    "",
    "| workload | records/s base | records/s head | head vs base | records per CPU-second base | head | head vs base |",
    "|---|---:|---:|---:|---:|---:|---:|",
    ...summary.map(
      (s) =>
        `| ${s.workload} | ${k(s.base.recordsPerSecond)} | ${k(s.head.recordsPerSecond)} | ${pct(s.head.recordsPerSecond, s.base.recordsPerSecond)} | ${k(s.base.recordsPerCpuSecond)} | ${k(s.head.recordsPerCpuSecond)} | ${pct(s.head.recordsPerCpuSecond, s.base.recordsPerCpuSecond)} |`,
    ),
    "",
    "Every run: " + runs.map((r) => `${r.workload} ${r.side} ${r.rep}: ${k(r.recordsPerSecond)}`).join("; ") + ".",
    "",
  ];
  writeFileSync(path.join(out, `${name}.md`), lines.join("\n"));
  log(`written to bench/results/${name}.{json,md}`);
}

main();
