/**
 * A child process for crash tests: commits versions 1..<versions> of the test workload
 * (`applyVersion`) to a FileStateStoreProvider at <checkpoint>, waiting for maintenance after
 * each commit, then prints "DONE". Run it with SLUICE_CRASH_AT set to die at a crash point.
 *
 *   node --import tsx src/state/testing/crash-writer.ts <checkpoint> <versions> <minDeltasForSnapshot>
 */
import { FileStateStoreProvider } from "../file-provider.js";
import { KIND, SCHEMA, applyVersion } from "../test-support.js";

const [checkpoint, versions, minDeltasForSnapshot] = process.argv.slice(2);
const provider = new FileStateStoreProvider(checkpoint!, { minDeltasForSnapshot: Number(minDeltasForSnapshot) });
const store = provider.load(0, 0);
const table = store.open(SCHEMA, KIND);
for (let v = 1; v <= Number(versions); v++) {
  applyVersion(table, v);
  store.commit(v);
  await provider.flush();
}
await provider.close();
console.log("DONE");
