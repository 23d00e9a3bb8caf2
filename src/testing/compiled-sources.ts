// Sluice's sources as JavaScript, for test child processes that start many times. Under tsx a fresh
// process spends a few seconds loading the engine (every module goes through tsx's loader thread;
// measured 2.8-3.9 s on a busy 2-core machine against 1.1-1.2 s for the same modules compiled, and
// worker threads pay it again); the tree is compiled once per test process instead, with esbuild (the
// transformer tsx itself runs, a dependency of tsx and vite): ~1.2 s for all of src/.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import * as path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/** src/ of the sources this module belongs to. */
const SRC = fileURLToPath(new URL("../", import.meta.url));

export interface CompiledSources {
  /** The compiled counterpart (a file: URL) of a module URL under src/, or null for one elsewhere. */
  url(moduleUrl: string): string | null;
}

let compiled: Promise<CompiledSources> | undefined;

/** Age after which a compiled tree no running test can still use is removed (a test process lives minutes). */
const STALE_MS = 6 * 60 * 60_000;

/** Compiles src/ (once per process) into a folder under the project's .cache/, removed when the process exits. */
export function compiledSources(): Promise<CompiledSources> {
  compiled ??= compile();
  return compiled;
}

async function compile(): Promise<CompiledSources> {
  const { build } = await import("esbuild");
  const cache = path.join(SRC, "..", ".cache", "compiled-sources");
  mkdirSync(cache, { recursive: true });
  // A test process ended by a signal leaves its tree behind: clear those of earlier days' runs.
  for (const old of readdirSync(cache)) {
    const dir = path.join(cache, old);
    if (Date.now() - statSync(dir).mtimeMs > STALE_MS) rmSync(dir, { recursive: true, force: true });
  }
  // Inside the project, so that packages resolve from its node_modules as from src/.
  const root = mkdtempSync(path.join(cache, "run-"));
  process.on("exit", () => rmSync(root, { recursive: true, force: true }));
  const out = path.join(root, "src");
  const entryPoints = readdirSync(SRC, { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts") && !/\.test(-d)?\.ts$/.test(f))
    .map((f) => path.join(SRC, f));
  await build({ entryPoints, outbase: SRC, outdir: out, format: "esm", platform: "node", target: "node20", bundle: false, sourcemap: "inline", logLevel: "warning" });
  return {
    url(moduleUrl) {
      if (!moduleUrl.startsWith("file:")) return null;
      const rel = path.relative(SRC, fileURLToPath(moduleUrl));
      if (rel.startsWith("..") || path.isAbsolute(rel) || !rel.endsWith(".ts")) return null;
      return pathToFileURL(path.join(out, rel.replace(/\.ts$/, ".js"))).href;
    },
  };
}
