import { createRequire } from "node:module";

/**
 * kafkajs frames every request in two Encoders (src/protocol/request.js): the header and body go
 * into one that starts at 512 bytes and grows by doubling into zero-filled buffers, and that
 * whole buffer is copied once more behind the size. A Produce request of 1 MB of record batches
 * so costs two zero-filled allocations of 2 MB and two copies on the driver, where the Kafka sink
 * runs. `frameRequest` writes the same bytes into one buffer of the exact size, with one copy of
 * the body.
 *
 * It takes the place of kafkajs's framing when kafkajs's connection module has not been loaded
 * yet (./kafkajs-internals.ts imports this first); if the application loaded kafkajs earlier, its
 * connections keep kafkajs's own framing, which writes the same bytes.
 */

/** What kafkajs's Connection.send hands to the framing (a request as kafkajs's protocol files define it). */
export interface FramingInput {
  readonly correlationId: number;
  readonly clientId: string | null | undefined;
  readonly request: { readonly apiKey: number; readonly apiVersion: number; encode(): Promise<{ readonly buffer: Buffer }> | { readonly buffer: Buffer } };
}

/** What Connection.send reads of a framed request: the bytes to write (an Encoder's `buffer`). */
export interface FramedRequest {
  readonly buf: Buffer;
  readonly buffer: Buffer;
}

/** int32 size, then the request header v1 (api_key int16, api_version int16, correlation_id int32, client_id nullable string) and the body. */
export async function frameRequest({ correlationId, clientId, request }: FramingInput): Promise<FramedRequest> {
  const body = (await request.encode()).buffer;
  const idBytes = clientId == null ? 0 : Buffer.byteLength(clientId, "utf8");
  const size = 2 + 2 + 4 + 2 + idBytes + body.length;
  const frame = Buffer.allocUnsafe(4 + size);
  let at = frame.writeInt32BE(size, 0);
  at = frame.writeInt16BE(request.apiKey, at);
  at = frame.writeInt16BE(request.apiVersion, at);
  at = frame.writeInt32BE(correlationId, at);
  at = frame.writeInt16BE(clientId == null ? -1 : idBytes, at);
  if (clientId != null) at += frame.write(clientId, at, idBytes, "utf8");
  body.copy(frame, at);
  return { buf: frame, buffer: frame };
}

const require = createRequire(import.meta.url);
const framing = require.resolve("kafkajs/src/protocol/request.js");
const connection = require.resolve("kafkajs/src/network/connection.js");
if (require.cache[connection] === undefined) {
  require(framing);
  require.cache[framing]!.exports = frameRequest;
}

/** Whether kafkajs's connections frame requests with `frameRequest` (false when the application loaded kafkajs first). */
export const framesKafkajsRequests = (): boolean => require.cache[framing]?.exports === frameRequest && require.cache[connection] !== undefined;
