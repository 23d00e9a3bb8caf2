import { afterEach } from "vitest";
import { tempDir } from "../testing/temp-dir.js";
import { FileStateStoreProvider } from "./file-provider.js";
import type { FileStateStoreOptions } from "./state-store-options.js";

/**
 * For state store specs: a checkpoint folder per test, providers on it that are closed (their
 * maintenance awaited) when the test ends, and the path of operator 0 partition 0's files.
 */
export function providerFixture() {
  const temp = tempDir("sluice-state-");
  const opened: FileStateStoreProvider[] = [];
  const closeProviders = () => Promise.all(opened.splice(0).map((p) => p.close()));
  afterEach(async () => {
    await closeProviders();
    temp.remove();
  });
  return {
    temp,
    closeProviders,
    openProvider(options: FileStateStoreOptions = {}): FileStateStoreProvider {
      const p = new FileStateStoreProvider(temp.dir, options);
      opened.push(p);
      return p;
    },
    shard: (...file: string[]) => temp.path("state", "0", "0", ...file),
  };
}
