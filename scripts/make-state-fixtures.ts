// Writes the state-* folders of fixtures/checkpoints/: checkpoints of the fixtures' query (see
// fixtures/checkpoints/README.md) whose state files are damaged or belong to another operator.
// Run with `npx tsx scripts/make-state-fixtures.ts`; the folders are committed, so tests need no run.
import { cpSync, mkdtempSync, rmSync, truncateSync, statSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { col, sum } from "../src/api/functions.js";
import { Session } from "../src/api/session.js";

const FIXTURES = fileURLToPath(new URL("../fixtures/checkpoints/", import.meta.url));
const Page = z.object({ page: z.string(), n: z.int32() });
const BLOCKS = [
  [{ page: "/a", n: 1 }, { page: "/b", n: 2 }],
  [{ page: "/a", n: 3 }],
];

type Shape = "count" | "sum" | "dedupe";

/** Runs one of three queries over the same two blocks and returns its checkpoint folder. */
async function checkpointOf(shape: Shape): Promise<string> {
  const dir = path.join(mkdtempSync(path.join(os.tmpdir(), "sluice-fixtures-")), "checkpoint");
  const session = new Session({ workers: 0 });
  try {
    const pages = session.memoryStream(Page);
    const df = pages.toDF();
    const query = (shape === "count" ? df.groupBy("page").count() : shape === "sum" ? df.groupBy("page").agg(sum(col("n")).alias("count")) : df.dropDuplicates("page"))
      .writeStream.outputMode(shape === "dedupe" ? "append" : "complete")
      .format("memory")
      .queryName("pages")
      .option("checkpointLocation", dir)
      .start();
    for (const block of BLOCKS) {
      pages.addData(...block);
      await query.processAllAvailable();
    }
    await query.stop();
  } finally {
    await session.stop();
  }
  rmSync(path.join(dir, ".lock"), { recursive: true, force: true });
  return dir;
}

function fixture(name: string, from: string, edit: (dir: string) => void = () => undefined): void {
  const dir = path.join(FIXTURES, name);
  rmSync(dir, { recursive: true, force: true });
  cpSync(from, dir, { recursive: true });
  edit(dir);
}

const state = (dir: string, version: number) => path.join(dir, "state", "0", "0", `${version}.delta`);
const count = await checkpointOf("count");
const withStateOf = (other: string) => (dir: string) => {
  rmSync(path.join(dir, "state"), { recursive: true });
  cpSync(path.join(other, "state"), path.join(dir, "state"), { recursive: true });
};
fixture("state-other-operator", count, withStateOf(await checkpointOf("dedupe")));
fixture("state-other-schema", count, withStateOf(await checkpointOf("sum")));
fixture("state-truncated-delta", count, (dir) => truncateSync(state(dir, 2), Math.floor(statSync(state(dir, 2)).size / 2)));
fixture("state-missing-delta", count, (dir) => rmSync(state(dir, 1)));
console.log(`wrote state fixtures under ${FIXTURES}`);
