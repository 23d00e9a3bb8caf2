// The published package as an application meets it: `npm pack`, installed into a new app folder, then used
// from ESM and CommonJS, type-checked under TypeScript's nodenext and bundler resolution, bundled with esbuild
// (a Kafka query, so kafkajs's files must be in the bundle), and imported without Kafka (kafkajs stays unloaded).
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { Partitioners } from "kafkajs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "./testing/temp-dir.js";
import { createTopic, deleteTopic, kafkaBootstrap, kafkaClient } from "./testing/kafka.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const NODE = process.execPath;
const npm = (cwd: string, ...args: string[]) => execFileSync("npm", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });

let app: string;
let tarball: string;
const topics: string[] = [];

/** Runs a file of the app with node; its stdout, or the failure with stderr. */
function run(file: string, env: Record<string, string> = {}): string {
  const r = spawnSync(NODE, [file], { cwd: app, encoding: "utf8", env: { ...process.env, ...env }, timeout: 60_000 });
  if (r.status !== 0) throw new Error(`node ${file} failed (${r.status ?? r.signal}):\n${r.stderr}`);
  return r.stdout.trim();
}

const QUERY = `
const Click = z.object({ page: z.string(), ms: z.int() });
const session = new Session({ workers: 1 });
const clicks = session.memoryStream(Click);
clicks.addData({ page: "/a", ms: 1 }, { page: "/b", ms: 2 }, { page: "/a", ms: 3 });
const q = clicks.toDF().groupBy("page").count().writeStream.outputMode("complete").format("memory").queryName("pages").start();
await q.processAllAvailable();
console.log(JSON.stringify(await session.table("pages").orderBy("page").collect()));
await q.stop();
await session.stop();
`;

beforeAll(async () => {
  app = tempDir("sluice-app-").dir;
  execFileSync(NODE, [path.join(ROOT, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.build.json"], { cwd: ROOT, stdio: "pipe" });
  const packed = JSON.parse(npm(ROOT, "pack", "--json", "--pack-destination", app)) as { filename: string }[];
  tarball = path.join(app, packed[0]!.filename);
  writeFileSync(path.join(app, "package.json"), JSON.stringify({ name: "sluice-app", private: true, version: "1.0.0" }));
  const zod = JSON.parse(readFileSync(path.join(ROOT, "node_modules/zod/package.json"), "utf8")).version as string;
  const esbuild = JSON.parse(readFileSync(path.join(ROOT, "node_modules/esbuild/package.json"), "utf8")).version as string;
  npm(app, "install", "--prefer-offline", "--no-audit", "--no-fund", tarball, `zod@${zod}`, "typescript@5.9.3", `esbuild@${esbuild}`);
}, 300_000);

afterAll(async () => {
  if (topics.length) await deleteTopic(...topics);
});

describe("the npm package", () => {
  // StreamTest and its ManualClock are the public `testing` export; every other test helper stays out.
  it("holds the library, its types, LICENSE and README: no tests, test helpers or maps pointing to missing sources", () => {
    const listed = JSON.parse(npm(ROOT, "pack", "--dry-run", "--json")) as { files: { path: string }[] }[];
    const files = listed[0]!.files.map((f) => f.path);
    expect(files).toEqual(expect.arrayContaining(["LICENSE", "README.md", "package.json", "dist/index.js", "dist/index.d.ts", "dist/testing/stream-test.js"]));
    expect(files.filter((f) => /\.test\.|\/testing\/(?!stream-test\.|manual-clock\.)|\/test-[^/]*$|fixture/.test(f))).toEqual([]);
    expect(files.filter((f) => f.startsWith("src/"))).toEqual([]);
    const installed = path.join(app, "node_modules/sluice/dist");
    for (const map of readdirSync(installed, { recursive: true }).map(String).filter((f) => f.endsWith(".js.map"))) {
      const m = JSON.parse(readFileSync(path.join(installed, map), "utf8")) as { sources: string[]; sourcesContent?: string[] };
      expect(m.sourcesContent?.length, `${map} carries its sources`).toBe(m.sources.length);
    }
  });

  it("runs a query from an ES module", () => {
    writeFileSync(path.join(app, "esm.mjs"), `import { Session } from "sluice";\nimport { z } from "zod";\n${QUERY}`);
    expect(run("esm.mjs")).toBe('[{"page":"/a","count":2},{"page":"/b","count":1}]');
  });

  it("runs a query from CommonJS, through require() of the ES module (Node >= 20.19)", () => {
    writeFileSync(path.join(app, "cjs.cjs"), `const { Session } = require("sluice");\nconst { z } = require("zod");\n(async () => {${QUERY}})();`);
    expect(run("cjs.cjs")).toBe('[{"page":"/a","count":2},{"page":"/b","count":1}]');
  });

  it.each([
    ["nodenext", "ts", { module: "nodenext", moduleResolution: "nodenext" }],
    ["bundler", "ts", { module: "esnext", moduleResolution: "bundler" }],
    // A CommonJS module: TypeScript compiles its import to require() of the ES module.
    ["nodenext", "cts", { module: "nodenext", moduleResolution: "nodenext" }],
  ])("type-checks under moduleResolution %s from a .%s file, column typos included", (name, ext, options) => {
    const dir = path.join(app, `ts-${name}-${ext}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, "package.json"), JSON.stringify({ type: "module" }));
    writeFileSync(
      path.join(dir, "tsconfig.json"),
      JSON.stringify({ compilerOptions: { ...options, target: "es2022", strict: true, noEmit: true, skipLibCheck: true, types: [] }, include: [`*.${ext}`] }),
    );
    const typed = `import { Session, col } from "sluice";\nimport { z } from "zod";\nconst session = new Session({ workers: 0 });\nconst df = session.createDataFrame([{ page: "/a" }], z.object({ page: z.string() }));\nexport const pages = df.select(col("page"));\n`;
    writeFileSync(path.join(dir, `query.${ext}`), typed);
    const tsc = (cwd: string) => spawnSync(NODE, [path.join(app, "node_modules/typescript/bin/tsc"), "-p", cwd], { encoding: "utf8" });
    expect(tsc(dir).stdout).toBe("");
    writeFileSync(path.join(dir, `typo.${ext}`), `${typed.replace("export const pages", "const _p")}export const typo = df.select(col("pgae"));\n`);
    const failed = tsc(dir);
    expect(failed.status).not.toBe(0);
    expect(failed.stdout).toContain(`typo.${ext}`);
    expect(failed.stdout).toContain('"pgae"');
  });

  it("does not load kafkajs for a program that never uses Kafka", () => {
    const probe = (what: string) =>
      `import { createRequire } from "node:module";\nconst t0 = performance.now();\n${what}\nconst ms = performance.now() - t0;\nconst loaded = Object.keys(createRequire(import.meta.url).cache).some((f) => f.includes("/kafkajs/"));\nconsole.log(JSON.stringify({ loaded, ms }));`;
    writeFileSync(path.join(app, "import-only.mjs"), probe(`await import("sluice");`));
    writeFileSync(path.join(app, "import-kafka.mjs"), probe(`const { Session } = await import("sluice");\nconst s = new Session({ workers: 0 });\nawait s.read.format("kafka").option("kafka.bootstrap.servers", ${JSON.stringify(kafkaBootstrap())}).option("subscribe", "sluice-none").load().collect().catch(() => {});\nawait s.stop();`));
    const only = JSON.parse(run("import-only.mjs")) as { loaded: boolean; ms: number };
    const kafka = JSON.parse(run("import-kafka.mjs")) as { loaded: boolean; ms: number };
    expect([only.loaded, kafka.loaded]).toEqual([false, true]);
    console.log(`import "sluice": ${only.ms.toFixed(0)} ms without Kafka; with a Kafka read: ${kafka.ms.toFixed(0)} ms`);
  });

  it("bundles a Kafka query with esbuild, kafkajs's files included, and runs it", async () => {
    const topic = await createTopic("sluice-bundle", 1);
    topics.push(topic);
    const producer = kafkaClient().producer({ createPartitioner: Partitioners.DefaultPartitioner });
    await producer.connect();
    await producer.send({ topic, messages: [{ value: "a" }, { value: "b" }] });
    await producer.disconnect();
    writeFileSync(
      path.join(app, "bundle-me.mjs"),
      `import { Session, col } from "sluice";\nconst s = new Session({ workers: 0 });\n` +
        `const rows = await s.read.format("kafka").option("kafka.bootstrap.servers", ${JSON.stringify(kafkaBootstrap())}).option("subscribe", ${JSON.stringify(topic)}).load().select(col("value").cast("string").alias("value")).orderBy("value").collect();\n` +
        `console.log(JSON.stringify(rows));\nawait s.stop();\n`,
    );
    execFileSync(path.join(app, "node_modules/.bin/esbuild"), ["bundle-me.mjs", "--bundle", "--platform=node", "--format=esm", "--outfile=out/bundle.mjs", "--log-level=error",
      // esbuild's ESM output needs require() for the CommonJS packages it bundles (kafkajs, piscina).
      "--banner:js=import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);"], { cwd: app, stdio: "pipe" });
    const bundle = readFileSync(path.join(app, "out/bundle.mjs"), "utf8");
    expect(bundle).toContain("kafkajs/src/cluster");
    expect(run("out/bundle.mjs")).toBe('[{"value":"a"},{"value":"b"}]');
  });
});
