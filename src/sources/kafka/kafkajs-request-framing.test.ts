import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { loadKafkajs } from "./kafkajs.js";
import { frameRequest, framesKafkajsRequests } from "./kafkajs-request-framing.js";

const require = createRequire(import.meta.url);
interface Encoder {
  writeInt16(v: number): Encoder;
  writeInt32(v: number): Encoder;
  writeString(v: string | null): Encoder;
  writeEncoder(v: unknown): Encoder;
  size(): number;
  readonly buffer: Buffer;
}
const KafkajsEncoder = require("kafkajs/src/protocol/encoder.js") as new () => Encoder;

/** kafkajs's own framing (src/protocol/request.js), step for step: the reference the bytes must equal. */
function kafkajsFrame(apiKey: number, apiVersion: number, correlationId: number, clientId: string | null, body: Buffer): Buffer {
  const payload = new KafkajsEncoder();
  payload.writeEncoder({ buf: body, buffer: body });
  const request = new KafkajsEncoder().writeInt16(apiKey).writeInt16(apiVersion).writeInt32(correlationId).writeString(clientId).writeEncoder(payload);
  return new KafkajsEncoder().writeInt32(request.size()).writeEncoder(request).buffer;
}

describe("frameRequest: kafkajs's request framing in one buffer", () => {
  const body = (n: number) => Buffer.from(Array.from({ length: n }, (_, i) => (i * 31) & 0xff));

  it("writes the bytes kafkajs writes: size, header v1 and body", async () => {
    const cases: [number, number, number, string | null, Buffer][] = [
      [0, 7, 1, "sluice", body(1_000_000)],
      [1, 11, 2_147_483_647, "sluice-ñ-客户端", body(300)],
      [3, 9, 0, null, body(0)],
      [18, 3, 42, "", body(17)],
    ];
    for (const [apiKey, apiVersion, correlationId, clientId, b] of cases) {
      const framed = await frameRequest({ correlationId, clientId, request: { apiKey, apiVersion, encode: async () => ({ buffer: b }) } });
      expect(framed.buffer.equals(kafkajsFrame(apiKey, apiVersion, correlationId, clientId, b))).toBe(true);
      expect(framed.buf).toBe(framed.buffer);
    }
  });

  it("is the framing kafkajs's connections use once Sluice has loaded kafkajs", async () => {
    await loadKafkajs();
    expect(framesKafkajsRequests()).toBe(true);
  });
});
