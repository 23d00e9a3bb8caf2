import { isAbsolute } from "node:path";
import { pathToFileURL } from "node:url";
import { OptionError } from "../errors/errors.js";

/**
 * Where worker threads find their code. Sluice runs from compiled JavaScript (`dist/workers/*.js`)
 * in production and from TypeScript sources (`src/workers/*.ts`, under vitest or tsx) in
 * development; every path here is resolved next to this module, with this module's own extension,
 * so the same code works from both trees.
 */

const ownExtension = new URL(import.meta.url).pathname.endsWith(".ts") ? ".ts" : ".js";

/** The module each worker thread loads: it unpacks a task, runs it and packs the result. */
export function workerEntryUrl(): URL {
  return new URL(`./worker-entry${ownExtension}`, import.meta.url);
}

/** The module that exports `runTask`, used when a pool is not given another one. */
export function defaultTaskModuleUrl(): string {
  return new URL(`./run-task${ownExtension}`, import.meta.url).href;
}

/** A module reference (file URL, absolute path or URL object) as a `file:` URL string for `import()`. */
export function moduleHref(module: string | URL): string {
  if (module instanceof URL) return module.href;
  if (isAbsolute(module)) return pathToFileURL(module).href;
  if (module.startsWith("file:")) return new URL(module).href;
  throw new OptionError(`taskModule must be a file: URL or an absolute path, got "${module}"; resolve it first, e.g. new URL("./task.js", import.meta.url)`);
}

function isTypeScript(href: string): boolean {
  return /\.[cm]?ts$/.test(new URL(href).pathname);
}

/**
 * `execArgv` for worker threads that must load TypeScript, or undefined (inherit the parent's)
 * when every module is JavaScript.
 *
 * On Node 20, `execArgv: ["--import", "tsx"]` does not reach worker threads: tsx registers its
 * loader hooks only on the main thread there, and the worker fails with ERR_UNKNOWN_FILE_EXTENSION
 * (nodejs/node#47747). Calling tsx's `register()` from a preload inside the worker does install
 * the hooks, on Node 20 and later alike, so the preload is a one-line `data:` module that does
 * exactly that. A `data:` module cannot resolve bare specifiers, hence the absolute URL of
 * tsx's ESM API, resolved from here (tsx is a development dependency: only reached from sources).
 */
export function workerExecArgv(modules: readonly string[]): string[] | undefined {
  if (!modules.some(isTypeScript)) return undefined;
  const tsxApi = import.meta.resolve("tsx/esm/api");
  const source = `import { register } from ${JSON.stringify(tsxApi)}; register();`;
  return ["--import", `data:text/javascript,${encodeURIComponent(source)}`];
}
