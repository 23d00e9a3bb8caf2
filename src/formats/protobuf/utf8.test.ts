import { describe, expect, it } from "vitest";
import { seededRandom } from "../test-rows.js";
import { isValidUtf8 } from "./utf8.js";

const fatal = new TextDecoder("utf-8", { fatal: true });
function decodes(bytes: Uint8Array): boolean {
  try {
    fatal.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

const valid = (bytes: readonly number[], at = 0) => {
  const buffer = new Uint8Array(at + bytes.length + 3);
  buffer.set(bytes, at);
  return isValidUtf8(buffer, new DataView(buffer.buffer), at, at + bytes.length);
};

describe("isValidUtf8", () => {
  it("accepts ASCII, 2-, 3- and 4-byte characters, at any offset and around the 4-byte ASCII steps", () => {
    for (const text of ["", "a", "abcd", "abcde", "café", "abcdé", "中文", "😀", "abc😀defgh", "x".repeat(33)]) {
      const bytes = [...new TextEncoder().encode(text)];
      for (let at = 0; at < 4; at++) expect([text, at, valid(bytes, at)]).toEqual([text, at, true]);
    }
  });

  it("refuses what protobuf-java refuses: stray continuations, overlong forms, surrogates, past U+10FFFF, truncations", () => {
    const bad = [[0x80], [0xc0, 0x80], [0xc1, 0xbf], [0xe0, 0x80, 0x80], [0xed, 0xa0, 0x80], [0xf0, 0x80, 0x80, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xf5, 0x80, 0x80, 0x80], [0xe4, 0xb8], [0x61, 0x62, 0x63, 0x64, 0xff]];
    for (const bytes of bad) expect([bytes, valid(bytes)]).toEqual([bytes, false]);
  });

  it("agrees with TextDecoder's fatal mode on random byte strings", () => {
    const rnd = seededRandom(3);
    for (let n = 0; n < 20_000; n++) {
      const length = Math.floor(rnd() * 12);
      // Mostly ASCII and well-formed lead/continuation bytes, so that both answers occur.
      const bytes = Uint8Array.from({ length }, () => (rnd() < 0.6 ? Math.floor(rnd() * 0x80) : 0x80 + Math.floor(rnd() * 0x80)));
      expect([[...bytes], isValidUtf8(bytes, new DataView(bytes.buffer), 0, length)]).toEqual([[...bytes], decodes(bytes)]);
    }
  });
});
