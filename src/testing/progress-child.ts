// A static count() and then an availableNow drain into the console sink, in a child process whose
// stderr is whatever the test gives it: a pseudo-terminal (through util-linux `script`) or a pipe.
// It prints `COUNT <n>` on stdout, then the sink's tables, then `DONE`. The bar shows from the first
// moment (no 500 ms wait) and redraws every millisecond, on the process's real stderr.
// Run as `node --import tsx progress-child.ts '{"dir": "..."}'`.
import { z } from "zod";
import { Session } from "../api/session.js";
import { runIfMain } from "./plan-child.js";

const Click = z.object({ user: z.string(), page: z.string(), durationMs: z.int32() });

async function main(plan: { readonly dir: string }): Promise<void> {
  const session = new Session({ workers: 1, conf: { "spark.ui.consoleProgress.update.interval": 1 } });
  session.progressOutput = { ...session.progressOutput, firstDelayMs: 0 };
  try {
    process.stdout.write(`COUNT ${await session.read.schema(Click).json(plan.dir).count()}\n`);
    const drain = session.readStream.schema(Click).option("maxFilesPerTrigger", 5).json(plan.dir).select("page");
    await drain.writeStream.format("console").option("numRows", 2).trigger({ availableNow: true }).start().awaitTermination();
    process.stdout.write("DONE\n");
  } finally {
    await session.stop();
  }
}

runIfMain(import.meta.url, main);
