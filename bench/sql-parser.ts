/**
 * SQL parser benchmark: Sluice's hand-written recursive-descent parser (src/sql/) against
 * node-sql-parser, a maintained PEG parser, on representative queries of the SQL Sluice reads
 * (Spark's dialect: window() and session_window() grouping, intervals, backquoted names, LEFT
 * SEMI joins, NULLS FIRST). For each query: whether it parses at all and the time per parse
 * (median of interleaved rounds); for a query with a syntax error: the line and position each
 * reports; and what each costs to install and to load. node-sql-parser has no Spark dialect: it
 * runs with Hive's (Spark SQL's ancestor) and with MySQL's (its default, the broadest here).
 * Written to bench/results/sql-parser.md.
 *
 *   npx tsx bench/sql-parser.ts              # 40 rounds of 200 parses per query and candidate
 *   npx tsx bench/sql-parser.ts --rounds 10
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, statSync, writeFileSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import * as os from "node:os";
import * as path from "node:path";
import { build } from "esbuild";
import { ParseException } from "../src/errors/errors.js";
import { parseSqlQuery } from "../src/sql/query-parser.js";
import { median } from "./harness/stats.js";

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i]!.replace(/^--/, ""), process.argv[i + 1]!);
const ROUNDS = Number(args.get("rounds") ?? 40);
/** Parses per timed sample: a parse takes microseconds, below the timer's useful resolution alone. */
const PARSES_PER_SAMPLE = 200;
const ROOT = path.resolve(import.meta.dirname, "..");

const QUERIES: readonly { name: string; sql: string }[] = [
  { name: "filter, order, limit", sql: "SELECT shop, amount * qty AS total FROM sales WHERE amount > 3 AND item IS NOT NULL ORDER BY total DESC LIMIT 10" },
  { name: "group by, having", sql: "SELECT shop, count(*) AS n, sum(amount) AS total FROM sales GROUP BY shop HAVING count(*) > 1" },
  { name: "window()", sql: "SELECT window.start, word, count(*) AS n FROM words GROUP BY window(time, '10 minutes', '5 minutes'), word" },
  { name: "session_window()", sql: "SELECT session_window.end, count(*) AS n FROM words GROUP BY session_window(time, '5 minutes')" },
  { name: "intervals", sql: "SELECT time + INTERVAL '10' MINUTE AS later, time - INTERVAL 1 HOUR AS earlier FROM sales" },
  { name: "backquoted names", sql: "SELECT `unit price` * qty AS `line total`, s.`shop` FROM sales s" },
  { name: "left outer join", sql: "SELECT s.item, p.city FROM sales s LEFT OUTER JOIN shops p ON s.shop = p.shop AND s.amount > 2" },
  { name: "left semi join", sql: "SELECT * FROM shops p LEFT SEMI JOIN sales s ON p.shop = s.shop" },
  { name: "subquery, union all", sql: "SELECT big.shop FROM (SELECT shop, sum(amount) AS total FROM sales GROUP BY shop) big WHERE big.total > 5 UNION ALL SELECT shop FROM shops" },
  { name: "cast, case, nulls first", sql: "SELECT CAST(amount AS INT) AS a, CASE WHEN qty > 2 THEN 'many' ELSE 'few' END AS size FROM sales ORDER BY item DESC NULLS FIRST" },
];

/** A syntax error on the fifth line: the offending token is ORDER, at line 5, position 1 (0-based, as Spark counts). */
const BAD_QUERY = "SELECT shop,\n       amount\n  FROM sales\n WHERE amount >\n ORDER BY shop";
const BAD_AT = { line: 5, pos: 1 };

interface Candidate {
  readonly name: string;
  readonly parse: (sql: string) => unknown;
  /** Line (1-based) and position (0-based) of a syntax error, if the error says. */
  readonly errorAt: (error: unknown) => { line: number; pos: number } | null;
}

const require = createRequire(import.meta.url);
const loadStart = performance.now();
const { Parser } = require("node-sql-parser") as { Parser: new () => { astify(sql: string, options: { database: string }): unknown } };
const nodeSqlParserLoadMs = performance.now() - loadStart;
const nodeSqlParser = new Parser();

/** node-sql-parser's errors are PEG.js SyntaxErrors with a location whose column is 1-based. */
const pegLocation = (error: unknown) => {
  const start = (error as { location?: { start?: { line: number; column: number } } }).location?.start;
  return start ? { line: start.line, pos: start.column - 1 } : null;
};

const CANDIDATES: readonly Candidate[] = [
  {
    name: "Sluice (hand-written)",
    parse: parseSqlQuery,
    errorAt: (e) => (e instanceof ParseException ? { line: e.line, pos: e.column } : null),
  },
  { name: "node-sql-parser (hive)", parse: (sql) => nodeSqlParser.astify(sql, { database: "hive" }), errorAt: pegLocation },
  { name: "node-sql-parser (mysql)", parse: (sql) => nodeSqlParser.astify(sql, { database: "mysql" }), errorAt: pegLocation },
];

function parses(c: Candidate, sql: string): string | null {
  try {
    c.parse(sql);
    return null;
  } catch (error) {
    const at = c.errorAt(error);
    return at ? `fails at ${at.line}:${at.pos}` : "fails";
  }
}

const loadBefore = os.loadavg()[0]!;
const failures = new Map<string, string | null>();
for (const q of QUERIES) for (const c of CANDIDATES) failures.set(`${q.name}|${c.name}`, parses(c, q.sql));

// Interleaved rounds: within a round each candidate parses each query in turn, the order rotating.
// Round -1 warms the code up (the JIT compiles each parser's hot paths) and is not recorded.
const samples = new Map<string, number[]>();
for (let round = -1; round < ROUNDS; round++) {
  for (const q of QUERIES) {
    for (let k = 0; k < CANDIDATES.length; k++) {
      const c = CANDIDATES[(round + 1 + k) % CANDIDATES.length]!;
      const key = `${q.name}|${c.name}`;
      if (failures.get(key) !== null) continue;
      const start = performance.now();
      for (let i = 0; i < PARSES_PER_SAMPLE; i++) c.parse(q.sql);
      const perParseUs = ((performance.now() - start) * 1000) / PARSES_PER_SAMPLE;
      if (round >= 0) samples.set(key, [...(samples.get(key) ?? []), perParseUs]);
    }
  }
}

const errorReports = CANDIDATES.map((c) => {
  try {
    c.parse(BAD_QUERY);
    return { candidate: c.name, at: null, message: "(parsed)" };
  } catch (error) {
    return { candidate: c.name, at: c.errorAt(error), message: String((error as Error).message).split("\n")[0]! };
  }
});

/** Bytes of a bundle of `entry`, minified, with everything it imports: what a user ships. */
async function bundleBytes(entry: string): Promise<number> {
  const out = await build({ entryPoints: [entry], bundle: true, minify: true, write: false, platform: "node", format: "esm", logLevel: "silent" });
  return out.outputFiles[0]!.contents.byteLength;
}

function directoryBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    total += entry.isDirectory() ? directoryBytes(p) : statSync(p).size;
  }
  return total;
}

const modules = path.join(ROOT, "node_modules");
const sizes = {
  sluiceSourceBytes: ["lexer.ts", "token-stream.ts", "expression-parser.ts", "query-parser.ts", "query-ast.ts", "function-registry.ts", "sql-errors.ts"]
    .map((f) => statSync(path.join(ROOT, "src/sql", f)).size)
    .reduce((a, b) => a + b, 0),
  sluiceBundleBytes: await bundleBytes(path.join(ROOT, "src/sql/query-parser.ts")),
  nodeSqlParserInstallBytes: directoryBytes(path.join(modules, "node-sql-parser")) + directoryBytes(path.join(modules, "big-integer")),
  nodeSqlParserHiveBundleBytes: await bundleBytes(path.join(modules, "node-sql-parser/build/hive.js")),
  nodeSqlParserAllBundleBytes: await bundleBytes(path.join(modules, "node-sql-parser/index.js")),
};

const loadAverage = [loadBefore, os.loadavg()[0]!].map((l) => Math.round(l * 10) / 10);
const commit = execFileSync("git", ["-C", ROOT, "rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim();
const cpu = `${os.cpus().length} cores (${os.cpus()[0]?.model ?? "unknown"})`;
const kb = (bytes: number) => `${Math.round(bytes / 1024).toLocaleString("en")} KB`;

const cell = (q: string, c: string) => {
  const failed = failures.get(`${q}|${c}`);
  return failed ?? `${median(samples.get(`${q}|${c}`)!).toFixed(1)} µs`;
};
const parsedCount = (c: string) => QUERIES.filter((q) => failures.get(`${q.name}|${c}`) === null).length;

const md = [
  "# SQL parser: Sluice's hand-written parser against node-sql-parser",
  "",
  `Time per parse (text to syntax tree), median of ${ROUNDS} interleaved rounds of ${PARSES_PER_SAMPLE} parses per query and`,
  `candidate; ${cpu}, Node ${process.version}, Sluice commit ${commit}; 1-minute load average ${loadAverage.join(" at the start, ")} at the end.`,
  "Produced by `npx tsx bench/sql-parser.ts`. node-sql-parser 5.4.0 has no Spark dialect: Hive's is the closest, MySQL's is its default.",
  "\"fails at L:P\" is a query the candidate cannot parse, with the line and (0-based) position its error names.",
  "",
  `| query | ${CANDIDATES.map((c) => c.name).join(" | ")} |`,
  `|---|${CANDIDATES.map(() => "---:").join("|")}|`,
  ...QUERIES.map((q) => `| ${q.name} | ${CANDIDATES.map((c) => cell(q.name, c.name)).join(" | ")} |`),
  `| **parsed** | ${CANDIDATES.map((c) => `${parsedCount(c.name)} of ${QUERIES.length}`).join(" | ")} |`,
  "",
  "## A syntax error",
  "",
  "```sql",
  BAD_QUERY,
  "```",
  "",
  `The offending token is \`ORDER\`, at line ${BAD_AT.line}, position ${BAD_AT.pos}.`,
  "",
  "| candidate | line:pos reported | first line of the message |",
  "|---|---|---|",
  ...errorReports.map((r) => `| ${r.candidate} | ${r.at ? `${r.at.line}:${r.at.pos}` : "none"} | ${r.message.replaceAll("|", "\\|")} |`),
  "",
  "## Size and load",
  "",
  "| | bytes |",
  "|---|---:|",
  `| Sluice's parser: source (lexer, token stream, expression and query parsers, AST, function registry, errors) | ${kb(sizes.sluiceSourceBytes)} |`,
  `| Sluice's parser: minified bundle of query-parser.ts with what it imports | ${kb(sizes.sluiceBundleBytes)} |`,
  `| node-sql-parser installed (every dialect, source maps, UMD builds) with big-integer | ${kb(sizes.nodeSqlParserInstallBytes)} |`,
  `| node-sql-parser: minified bundle of its Hive build | ${kb(sizes.nodeSqlParserHiveBundleBytes)} |`,
  `| node-sql-parser: minified bundle of its main entry (all dialects) | ${kb(sizes.nodeSqlParserAllBundleBytes)} |`,
  "",
  `Loading node-sql-parser's main entry took ${nodeSqlParserLoadMs.toFixed(0)} ms (one sample, in this process).`,
  "",
];
mkdirSync(path.join(ROOT, "bench/results"), { recursive: true });
writeFileSync(path.join(ROOT, "bench/results/sql-parser.md"), md.join("\n"));
process.stdout.write(md.join("\n"));
