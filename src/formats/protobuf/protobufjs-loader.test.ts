import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));

/** Runs `code` in a fresh Node (an ES module, TypeScript through tsx) and returns what it printed. */
function run(code: string): string {
  const child = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", code], { cwd: ROOT, encoding: "utf8", timeout: 60_000 });
  expect(child.stderr).toBe("");
  return child.stdout.trim();
}

describe("protobufjs is loaded on first use", () => {
  it("not by decoding or encoding, which run on Sluice's own descriptors; by the first schema parse", () => {
    const out = run(
      [
        `const p = await import("./src/formats/protobuf/index.ts");`,
        `const cache = (await import("node:module")).createRequire(import.meta.url).cache;`,
        `const loaded = () => Object.keys(cache).some((f) => f.includes("/protobufjs/"));`,
        `const message = { fullName: "A", nested: [], fields: [{ name: "x", number: 1, type: "int32", label: "optional", map: false, packed: false, presence: "implicit", validateUtf8: false }] };`,
        `const fields = [{ name: "x", type: "int32", nullable: true }];`,
        `const { batch } = p.decodeProtobufValues(Uint8Array.of(8, 5), Int32Array.of(0, 2), null, fields, { message, mode: "FAILFAST" });`,
        `const { bytes } = p.encodeProtobufValues(batch, message);`,
        `const before = [loaded(), [...bytes]];`,
        `await p.parseProtoSchema('syntax = "proto3"; message A { int32 x = 1; }');`,
        `console.log(JSON.stringify([before, loaded()]));`,
      ].join("\n"),
    );
    expect(JSON.parse(out)).toEqual([[false, [8, 5]], true]);
  });
});
