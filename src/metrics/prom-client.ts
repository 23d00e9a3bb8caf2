import { createRequire } from "node:module";
import type * as PromClient from "prom-client";

let loaded: typeof PromClient | null = null;

/** prom-client, loaded on first use (a CommonJS package, so synchronously): sessions without metrics never pay for its import. */
export function promClient(): typeof PromClient {
  return (loaded ??= createRequire(import.meta.url)("prom-client") as typeof PromClient);
}
