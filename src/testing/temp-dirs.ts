import { afterEach } from "vitest";
import { tempDir } from "./temp-dir.js";

/**
 * A maker of temporary folders for a test file: each test's folders are deleted after it. (Apart from
 * temp-dir.ts, which child processes import without vitest.)
 */
export function tempDirs(defaultPrefix?: string): (prefix?: string) => ReturnType<typeof tempDir> {
  let made: ReturnType<typeof tempDir>[] = [];
  afterEach(() => {
    for (const d of made) d.remove();
    made = [];
  });
  return (prefix = defaultPrefix) => {
    const d = tempDir(prefix);
    made.push(d);
    return d;
  };
}
