/**
 * From laptop to cluster: the same typed query run by the embedded engine, then by a Spark Connect
 * server, with the same answer.
 *
 *   npx tsx examples/laptop-to-cluster/main.ts                                         # embedded only
 *   SPARK_REMOTE="sc://127.0.0.1:15002" npx tsx examples/laptop-to-cluster/main.ts    # and on Spark
 *
 * (`bash scripts/spark-connect.sh start` starts a Spark Connect server on this machine.) The server
 * reads the same folder: on a cluster, give a path every executor can read (s3a://, hdfs://...).
 */
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { Session } from "../../src/index.js";
import { finalWindows } from "./page-views.js";

const fixtures = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..", "..", "fixtures", "clickstream");

/**
 * A copy of the click files with a second between their modification times: a file stream takes new
 * files oldest first (Spark orders them by modification time), and the files of one git checkout
 * share a millisecond, which Spark breaks in directory-listing order.
 */
function clickFolder(scratch: string): string {
  const clicks = path.join(scratch, "clicks");
  mkdirSync(clicks);
  readdirSync(fixtures)
    .sort()
    .forEach((name, i) => {
      copyFileSync(path.join(fixtures, name), path.join(clicks, name));
      const t = new Date(Date.UTC(2026, 2, 1, 12, 0, i));
      utimesSync(path.join(clicks, name), t, t);
    });
  return clicks;
}

async function run(session: Session, clicks: string, checkpoint: string) {
  try {
    return await finalWindows(session, clicks, checkpoint);
  } finally {
    await session.stop();
  }
}

/** The final windows embedded, and on the Spark Connect server at `remote` when given. */
export async function laptopToCluster(remote: string | undefined) {
  const scratch = mkdtempSync(path.join(os.tmpdir(), "sluice-laptop-to-cluster-"));
  try {
    const clicks = clickFolder(scratch);
    const embedded = await run(new Session({ workers: 2 }), clicks, path.join(scratch, "embedded"));
    const onSpark = remote ? await run(new Session({ remote }), clicks, path.join(scratch, "spark")) : null;
    return { embedded, onSpark };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const { embedded, onSpark } = await laptopToCluster(process.env.SPARK_REMOTE);
  console.log(`embedded: ${embedded.length} final windows`);
  console.table(embedded.slice(0, 6));
  if (onSpark) {
    console.log(`spark: ${onSpark.length} final windows`);
    console.table(onSpark.slice(0, 6));
    const same = JSON.stringify(embedded) === JSON.stringify(onSpark);
    console.log(same ? "the same answer on both" : "the answers differ");
    if (!same) process.exitCode = 1;
  } else {
    console.log("set SPARK_REMOTE=sc://host:port to run it on a Spark Connect server too");
  }
}
