/**
 * Sluice at two commits, side by side: the drain phase of `npm run bench` for Sluice alone, run
 * from a clean checkout of each commit in interleaved repetitions (base, head, base, head ...)
 * against the same broker and topics. It answers "did this change slow Sluice down?" with a ratio
 * measured in one run on one machine, which figures committed on another machine cannot.
 *
 *   npm run bench:compare -- --base dab5ce6 --workload W1,W3 --reps 3
 *   npm run bench:compare -- --base v0.1.0 --head main --workload W2
 *   npm run bench:compare -- --base 006df12 --workload W1,W4 --records 3000000 --reps 3
 *
 * Results: bench/results/compare-<base>-<head>.{json,md}. A later run for the same two commits adds
 * its repetitions to the file's (medians over all of them); `--report` only rewrites the .md.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
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
    /** Events per drain topic (bench/run.ts --records); by default each workload's own. */
    records: z.coerce.number().int().min(100_000).optional(),
    /** Only render the .md again from the results file. */
    report: z.literal("").transform(() => true).optional(),
  })
  .strict();

function parseArgs(argv: readonly string[]): z.infer<typeof Options> {
  const raw: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const m = /^--([a-z-]+)(?:=(.*))?$/.exec(argv[i]!);
    if (!m) throw new Error(`unexpected argument "${argv[i]}": options are --name value`);
    const next = argv[i + 1];
    raw[m[1]!] = m[2] ?? (next !== undefined && !next.startsWith("--") ? argv[++i]! : "");
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

/** The variant compared: Sluice's default trigger (bench/harness/variants.ts). */
const SLUICE_DEFAULT = "sluice:default";
/** Its name in runners from before variants (35a9b89), which ran each system at its defaults only. */
const SLUICE_BEFORE_VARIANTS = "sluice";

const DrainRow = z.object({
  system: z.enum([SLUICE_DEFAULT, SLUICE_BEFORE_VARIANTS]),
  status: z.string(),
  seconds: z.number(),
  recordsPerSecond: z.number(),
  cpuSeconds: z.number(),
  recordsPerCpuSecond: z.number(),
  peakRssMiB: z.number(),
});

/** One drain repetition of Sluice at the checkout `dir`, through that commit's own bench runner. */
function drainOnce(dir: string, workload: WorkloadName, records: number | undefined): z.infer<typeof DrainRow> {
  const sized = records === undefined ? [] : ["--records", String(records)];
  const sluice = existsSync(path.join(dir, "bench", "harness", "variants.ts")) ? SLUICE_DEFAULT : SLUICE_BEFORE_VARIANTS;
  // The checkout's committed results would be merged with this run's (kept as repetitions of the
  // same input, or refused as runs this one would drop): start from none, so the file read back
  // holds this repetition alone.
  const resultsFile = path.join(dir, "bench", "results", `${workload}.json`);
  rmSync(resultsFile, { force: true });
  const r = spawnSync(
    process.execPath,
    ["--max-old-space-size=12288", "--import", "tsx", "bench/run.ts", "--workload", workload, "--systems", sluice, "--phases", "drain", "--reps", "1", ...sized],
    { cwd: dir, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] },
  );
  if (r.status !== 0) throw new Error(`the bench at ${dir} failed (exit ${r.status}):\n${r.stdout}`);
  const results = JSON.parse(readFileSync(resultsFile, "utf8")) as { drain: unknown[] };
  const row = DrainRow.parse(results.drain.find((r) => (r as { system?: unknown }).system === sluice));
  if (row.status !== "ok") throw new Error(`${workload} at ${dir}: the drain run ended "${row.status}"`);
  return row;
}

const ResultsFile = z.object({
  base: z.string(),
  head: z.string(),
  records: z.number().optional(),
  runs: z.array(z.custom<Run>()),
  finishedAt: z.string(),
});

function main(): void {
  const o = parseArgs(process.argv.slice(2));
  const sides = { base: git("rev-parse", "--short", o.base), head: git("rev-parse", "--short", o.head) };
  const name = `compare-${sides.base}-${sides.head}`;
  const file = path.join(ROOT, "bench", "results", `${name}.json`);
  const previous = existsSync(file) ? ResultsFile.parse(JSON.parse(readFileSync(file, "utf8"))) : undefined;
  if (previous && !o.report && previous.records !== o.records) {
    throw new Error(`${name}.json holds runs over ${previous.records ?? "the default"} records: rerun with that --records, or move the file away`);
  }
  const records = o.report ? previous?.records : o.records;
  const runs: Run[] = [...(previous?.runs ?? [])];
  if (!o.report) {
    const dirs = { base: checkout(sides.base), head: checkout(sides.head) };
    for (let rep = 1; rep <= o.reps; rep++) {
      for (const workload of o.workload) {
        for (const side of ["base", "head"] as const) {
          const row = drainOnce(dirs[side], workload, records);
          const n = runs.filter((r) => r.workload === workload && r.side === side).length + 1;
          runs.push({ side, workload, rep: n, ...row });
          log(`${workload} ${side} (${sides[side]}) rep ${n}: ${(row.recordsPerSecond / 1000).toFixed(0)} k rec/s, ${row.cpuSeconds.toFixed(1)} CPU-s`);
        }
      }
    }
    writeFileSync(file, `${JSON.stringify({ base: sides.base, head: sides.head, records, finishedAt: new Date().toISOString(), runs }, null, 2)}\n`);
  }
  writeReport(path.join(ROOT, "bench", "results", `${name}.md`), sides, runs, records);
  log(`written to bench/results/${name}.{json,md}`);
}

function writeReport(file: string, sides: { base: string; head: string }, runs: readonly Run[], records: number | undefined): void {
  const workloads = WORKLOADS.filter((w) => runs.some((r) => r.workload === w));
  const of = (workload: WorkloadName, side: "base" | "head", key: "recordsPerSecond" | "recordsPerCpuSecond") =>
    median(runs.filter((r) => r.workload === workload && r.side === side).map((r) => r[key]));
  const count = (workload: WorkloadName) => runs.filter((r) => r.workload === workload && r.side === "head").length;
  const k = (n: number) => `${Math.round(n).toLocaleString("en-US")}`;
  const pct = (head: number, base: number) => `${head >= base ? "+" : ""}${((head / base - 1) * 100).toFixed(1)}%`;
  const lines = [
    `# Sluice ${sides.head} against ${sides.base}`,
    "",
    "Written by `npm run bench:compare` (bench/compare-commits.ts): the drain phase of `npm run bench` for Sluice alone, " +
      "run from a clean checkout of each commit in interleaved repetitions (base, head, base, head ...) on one broker and the same topics; medians over every repetition recorded. " +
      (records === undefined ? "Each workload's default drain size." : `Drain topics of ${records.toLocaleString("en-US")} events.`),
    "",
    "| workload | repetitions per side | records/s base | records/s head | head vs base | records per CPU-second base | head | head vs base |",
    "|---|---:|---:|---:|---:|---:|---:|---:|",
    ...workloads.map((w) => {
      const [rb, rh, cb, ch] = [of(w, "base", "recordsPerSecond"), of(w, "head", "recordsPerSecond"), of(w, "base", "recordsPerCpuSecond"), of(w, "head", "recordsPerCpuSecond")];
      return `| ${w} | ${count(w)} | ${k(rb)} | ${k(rh)} | ${pct(rh, rb)} | ${k(cb)} | ${k(ch)} | ${pct(ch, cb)} |`;
    }),
    "",
    "Every run, in order: " + runs.map((r) => `${r.workload} ${r.side} ${r.rep}: ${k(r.recordsPerSecond)}`).join("; ") + ".",
    "",
  ];
  writeFileSync(file, lines.join("\n"));
}

main();
