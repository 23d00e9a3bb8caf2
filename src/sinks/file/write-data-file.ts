import { promises as fs } from "node:fs";
import * as path from "node:path";
import { SluiceError } from "../../errors/errors.js";
import { osErrorText } from "../../sources/file/os-error.js";

/**
 * Writes a data file durably: to a hidden temp name beside it (readers skip names starting with a
 * dot), fsynced, then renamed over `file`, replacing what a crashed run may have left under that
 * name. The folder itself is synced by the caller once all of a batch's files are in place.
 * Returns the size and modification time the manifest records.
 */
export async function writeDataFile(file: string, bytes: Uint8Array): Promise<{ size: number; mtimeMs: number }> {
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${Date.now()}.tmp`);
  try {
    const handle = await fs.open(tmp, "w");
    try {
      await handle.writeFile(bytes);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fs.rename(tmp, file);
    const s = await fs.stat(file);
    return { size: s.size, mtimeMs: s.mtimeMs };
  } catch (e) {
    throw new SluiceError(`cannot write output file ${file}: ${osErrorText(e)}`, { cause: e });
  } finally {
    await fs.rm(tmp, { force: true }).catch(() => undefined);
  }
}
