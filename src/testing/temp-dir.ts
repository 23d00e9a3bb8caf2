import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

/** A fresh temporary folder; `write(name, lines)` adds a JSON-lines file; `remove()` deletes it all. */
export function tempDir(prefix = "sluice-test-") {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  return {
    dir,
    path: (...parts: string[]) => path.join(dir, ...parts),
    write(name: string, lines: readonly (string | object)[]): string {
      const file = path.join(dir, name);
      writeFileSync(file, lines.map((l) => (typeof l === "string" ? l : JSON.stringify(l))).join("\n") + "\n");
      return file;
    },
    remove(): void {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Every file under `dir`, at any depth: what a test scans for text that must not be written anywhere (a secret). */
export function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    return statSync(file).isDirectory() ? filesUnder(file) : [file];
  });
}
