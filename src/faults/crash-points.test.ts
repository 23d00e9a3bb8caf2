import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const MODULE = fileURLToPath(new URL("./crash-points.ts", import.meta.url));

/** A child that passes crash points a(1), b(2) and c() and then says it survived. */
function run(crashAt: string | undefined) {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.SLUICE_CRASH_AT;
  if (crashAt !== undefined) env.SLUICE_CRASH_AT = crashAt;
  const code = `const { crashPoint } = await import(${JSON.stringify(MODULE)}); crashPoint("a", 1); crashPoint("b", 2); crashPoint("c"); console.log("survived");`;
  const child = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", code], { env, encoding: "utf8", timeout: 30_000 });
  return { signal: child.signal, stdout: child.stdout, stderr: child.stderr };
}

describe("crashPoint", () => {
  it("SIGKILLs the process at the named point, saying so on stderr", () => {
    expect(run("b")).toEqual({ signal: "SIGKILL", stdout: "", stderr: "SLUICE_CRASHED b 2\n" });
    expect(run("b:2")).toEqual({ signal: "SIGKILL", stdout: "", stderr: "SLUICE_CRASHED b 2\n" });
    expect(run("c")).toEqual({ signal: "SIGKILL", stdout: "", stderr: "SLUICE_CRASHED c\n" });
  });

  it("does nothing when unset, at other points, or at another detail", () => {
    for (const crashAt of [undefined, "", "d", "b:3", "c:1", "a:"]) expect(run(crashAt)).toEqual({ signal: null, stdout: "survived\n", stderr: "" });
  });
});
