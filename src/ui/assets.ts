import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { CLIENT_SCRIPT } from "./client-script.js";
import { STYLES } from "./styles.js";

export interface Asset {
  readonly type: string;
  readonly body: string;
}

const JS = "text/javascript; charset=utf-8";
const CSS = "text/css; charset=utf-8";

/** uPlot's browser build and style sheet come from the installed `uplot` package: served by Sluice, never from a CDN. */
const UPLOT_FILES: Record<string, { readonly module: string; readonly type: string }> = {
  "uPlot.iife.min.js": { module: "uplot/dist/uPlot.iife.min.js", type: JS },
  "uPlot.min.css": { module: "uplot/dist/uPlot.min.css", type: CSS },
};

const cache = new Map<string, Asset>([
  ["sluice-ui.js", { type: JS, body: CLIENT_SCRIPT }],
  ["sluice-ui.css", { type: CSS, body: STYLES }],
]);

/** The file served at /static/<name>, or undefined; uPlot's files are read once, on first request. */
export function staticAsset(name: string): Asset | undefined {
  const known = cache.get(name);
  if (known) return known;
  const file = UPLOT_FILES[name];
  if (!file) return undefined;
  const asset = { type: file.type, body: readFileSync(createRequire(import.meta.url).resolve(file.module), "utf8") };
  cache.set(name, asset);
  return asset;
}
