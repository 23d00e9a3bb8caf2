import { createRequire } from "node:module";

/**
 * The codec packages are CommonJS without type declarations, and most fetches never need them:
 * each is loaded on first use through `require`, typed by the small interface its caller declares.
 */
const requireFromHere = createRequire(import.meta.url);

export function loadPackage<T>(specifier: string): T {
  return requireFromHere(specifier) as T;
}
