import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Session } from "../api/session.js";
import { createTopic, kafkaBootstrap } from "../testing/kafka.js";
import { loadScenarioInput, runChild, runToCompletion, scenarioOutput, type ScenarioInput } from "../testing/recovery.js";
import { tempDir } from "../testing/temp-dir.js";
import type { WindowedCountsPlan } from "../testing/windowed-counts.js";

/**
 * A write that fails at the checkpoint or state layer stops the query with an error naming the
 * path; started again once the fault is gone, the query loses nothing. Faults: EIO injected into
 * chosen writes (SLUICE_FAIL_IO), and a real full file system (a small tmpfs, filled up).
 */
describe("failed writes", () => {
  let input: ScenarioInput;
  let session: Session;
  const temp = tempDir("sluice-io-errors-");
  beforeAll(async () => {
    input = await loadScenarioInput(kafkaBootstrap(), 20_000, 40);
    session = new Session({ workers: 0 });
  });
  afterAll(async () => {
    await session.stop();
    temp.remove();
  });

  async function plan(name: string, root = temp.dir): Promise<WindowedCountsPlan> {
    return {
      kind: "windowedCounts",
      bootstrap: kafkaBootstrap(),
      input: input.topic,
      checkpoint: path.join(root, name, "checkpoint"),
      sink: { kind: "kafka", topic: await createTopic("io-errors-output", 1) },
      maxOffsetsPerTrigger: 1_000,
      workers: 0,
    };
  }

  it.each([
    ["the offsets log", "offsets/3"],
    ["the commit log", "commits/3"],
    ["a state delta", "state/0/0/5.delta"],
  ])("an I/O error writing %s stops the query naming the file; after the fault the restarted query loses nothing", async (_what, file) => {
    const p = await plan(file.replace(/\//g, "-"));
    const failed = await runChild(p, { env: { SLUICE_FAIL_IO: `write:/${file}` } });
    expect(failed.outcome).toBe("failed");
    expect(failed.stderr).toContain(`cannot write checkpoint file ${path.join(p.checkpoint, file)}: EIO EIO: i/o error (injected by SLUICE_FAIL_IO)`);
    const rest = await runToCompletion(p);
    expect(rest.map((a) => a.outcome)).toEqual(["done"]);
    expect(await scenarioOutput(session, p)).toEqual(input.expected);
  });

  it("a full file system stops the query naming the file it could not write; with space again it loses nothing", async () => {
    const mount = temp.path("small-fs");
    mkdirSync(mount);
    // A real file system of 4 MiB (tmpfs; the fault suite runs as root, as CI does).
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=4m", "tmpfs", mount]);
    try {
      const p = await plan("query", mount);
      // Leave room for the first few batches only.
      writeFileSync(path.join(mount, "filler"), Buffer.alloc(4 * 1024 * 1024 - 96 * 1024));
      const failed = await runChild(p);
      expect(failed.outcome).toBe("failed");
      expect(failed.stderr).toMatch(new RegExp(`cannot (write|create directory) checkpoint file ${p.checkpoint}/\\S+: ENOSPC`));
      rmSync(path.join(mount, "filler"));
      const rest = await runToCompletion(p);
      expect(rest.map((a) => a.outcome)).toEqual(["done"]);
      expect(await scenarioOutput(session, p)).toEqual(input.expected);
    } finally {
      execFileSync("umount", [mount]);
    }
  });
});
