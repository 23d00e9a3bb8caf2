import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, utimesSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { batchToRows } from "../../batch/rows.js";
import { fieldsFromZod } from "../../schema/zod-schema.js";
import { decodeParquetFile } from "../../formats/parquet-file.js";
import { withSession } from "../../testing/fixtures.js";
import { tempDirs } from "../../testing/temp-dirs.js";
import { committedFiles } from "./committed-files.js";

/**
 * Fault test: a query from a folder of JSON files to the file sink runs in a child process that is
 * killed with SIGKILL after batch 1's part files are written and before its manifest entry, then
 * starts again on the same checkpoint and output folder. The output must be exactly that of a run
 * without the crash, and readers must see every row once.
 */

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
const SESSION = pathToFileURL(fileURLToPath(new URL("../../api/session.ts", import.meta.url))).href;
const CHILD_TIMEOUT_MS = 60_000;

const Event = z.object({ id: z.int(), name: z.string(), time: z.date() });

/** The query: one input file per batch, until none is left (Trigger.AvailableNow). */
const QUERY = `
const { z } = await import("zod");
const { Session } = await import(${JSON.stringify(SESSION)});
const [input, output, checkpoint, format] = process.argv.slice(1);
const Event = z.object({ id: z.int(), name: z.string(), time: z.date() });
const session = new Session({ workers: 0 });
const q = session.readStream.schema(Event).option("maxFilesPerTrigger", 1).json(input)
  .writeStream.format(format).option("path", output).option("checkpointLocation", checkpoint)
  .trigger({ availableNow: true }).start();
await q.awaitTermination();
await session.stop();
`;

interface ChildResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stderr: string;
}

function runQuery(args: string[], crashAt?: string): Promise<ChildResult> {
  const env = { ...process.env };
  delete env["SLUICE_CRASH_AT"];
  if (crashAt) env["SLUICE_CRASH_AT"] = crashAt;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", QUERY, ...args], { cwd: ROOT, env, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`the query process did not end within ${CHILD_TIMEOUT_MS} ms; stderr: ${stderr}`));
    }, CHILD_TIMEOUT_MS);
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stderr });
    });
  });
}

const tempFolder = tempDirs();

/** Three input files of two events each, oldest first, so batch N reads file N. */
function input() {
  const d = tempFolder("sluice-file-sink-crash-");
  const t = (k: number) => `2026-01-01T10:00:0${k}.000Z`;
  for (let f = 0; f < 3; f++) {
    const file = d.write(`events-${f}.json`, [0, 1].map((k) => ({ id: 2 * f + k, name: `e${2 * f + k}`, time: t(2 * f + k) })));
    utimesSync(file, 1000 + f, 1000 + f);
  }
  return d;
}

const dataFiles = (dir: string) => readdirSync(dir).filter((n) => n !== "_sluice_metadata").sort();
const ALL_IDS = [0, 1, 2, 3, 4, 5];

describe.each(["json", "parquet"] as const)("file sink (%s) killed at fileSinkBeforeManifest", (format) => {
  it("restarts into exactly the output of an uninterrupted run; the crashed batch's orphan files are never read", { timeout: 4 * CHILD_TIMEOUT_MS }, async () => {
    const d = input();
    const clean = await runQuery([d.dir, d.path("clean-out"), d.path("clean-cp"), format]);
    expect(clean).toEqual({ code: 0, signal: null, stderr: "" });

    const crashed = await runQuery([d.dir, d.path("out"), d.path("cp"), format], "fileSinkBeforeManifest:1");
    expect(crashed.signal).toBe("SIGKILL");
    expect(crashed.stderr).toContain("SLUICE_CRASHED fileSinkBeforeManifest 1\n");
    const orphan = `part-00001-00000.${format}`;
    expect(dataFiles(d.path("out"))).toEqual([`part-00000-00000.${format}`, orphan]);
    expect(readdirSync(d.path("out", "_sluice_metadata"))).toEqual(["0"]);
    expect(existsSync(d.path("cp", "offsets", "1"))).toBe(true);
    expect(existsSync(d.path("cp", "commits", "1"))).toBe(false);
    // The orphan exists, but readers take the manifest's files only.
    expect((await committedFiles(d.path("out")))!.map((f) => f.path)).toEqual([d.path("out", `part-00000-00000.${format}`)]);
    expect(await readIds(format, d.path("out"))).toEqual([0, 1]);

    const restarted = await runQuery([d.dir, d.path("out"), d.path("cp"), format]);
    expect(restarted).toEqual({ code: 0, signal: null, stderr: "" });
    expect(dataFiles(d.path("out"))).toEqual(dataFiles(d.path("clean-out")));
    for (const name of dataFiles(d.path("out"))) expect(readFileSync(d.path("out", name))).toEqual(readFileSync(d.path("clean-out", name)));
    const listed = async (dir: string) => (await committedFiles(dir))!.map((f) => [f.path.slice(dir.length + 1), f.size, f.numRows]);
    expect(await listed(d.path("out"))).toEqual(await listed(d.path("clean-out")));
    expect(await readIds(format, d.path("out"))).toEqual(ALL_IDS);
  });
});

/** The ids a reader of the folder sees, in order: read.json for JSON, the committed files decoded for Parquet. */
async function readIds(format: "json" | "parquet", dir: string): Promise<number[]> {
  if (format === "json") {
    return withSession(0, async (session) => (await session.read.schema(Event).json(dir).collect()).map((r) => r.id).sort((a, b) => a - b));
  }
  const rows = [];
  for (const f of (await committedFiles(dir))!) rows.push(...batchToRows(decodeParquetFile(readFileSync(f.path), fieldsFromZod(Event), f.path)));
  return rows.map((r) => r.id as number).sort((a, b) => a - b);
}
