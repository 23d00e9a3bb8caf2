import { PreparationNeeded } from "../errors/errors.js";

/**
 * Preparations one run may ask for: each caches what it fetched, so the next run needs another only
 * for a different operator (or a value naming a schema the first did not see).
 */
const MAX_PREPARATIONS = 8;

/**
 * Runs `run` until it returns. An operator that needs an answer from a schema registry first asks
 * for it by throwing PreparationNeeded: the answer is awaited (and cached in this process) and `run`
 * is called again on the same input (`attempt` counts from 1), at most MAX_PREPARATIONS times.
 */
export async function runPrepared<T>(run: (attempt: number) => T | Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run(attempt);
    } catch (e) {
      if (!(e instanceof PreparationNeeded) || attempt >= MAX_PREPARATIONS) throw e;
      await e.prepare();
    }
  }
}
