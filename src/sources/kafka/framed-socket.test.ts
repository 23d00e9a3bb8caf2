import { once } from "node:events";
import * as net from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { seededRandom } from "../../testing/recovery.js";
import { connectFramed, FrameReader, giveBackResponse, isFramedSocket } from "./framed-socket.js";

/** A response as a broker sends it: int32 size, then `size` bytes (here a counter from `seed`). */
function frame(size: number, seed: number): Buffer {
  const f = Buffer.alloc(4 + size);
  f.writeInt32BE(size, 0);
  for (let i = 0; i < size; i++) f[4 + i] = (seed + i * 7) & 0xff;
  return f;
}

/** Frames of the sizes that matter: empty, smaller than the size prefix, around the direct-read threshold, larger than the scratch buffer. */
const SIZES = [0, 1, 3, 4, 100, 4_091, 4_092, 4_096, 20_000, 65_532, 65_536, 70_000, 1_000_000, 7];
const FRAMES = SIZES.map((size, i) => frame(size, i));
const STREAM = Buffer.concat(FRAMES);

/** Feeds `stream` to a reader as a socket would: each read fills at most `chunk()` bytes of the buffer the reader asked for. */
function readAll(stream: Buffer, chunk: () => number): { frames: Buffer[]; errors: Error[] } {
  const frames: Buffer[] = [];
  const errors: Error[] = [];
  const reader = new FrameReader(
    (f) => frames.push(f),
    (e) => errors.push(e),
  );
  let pos = 0;
  while (pos < stream.length && errors.length === 0) {
    const into = reader.nextBuffer();
    const n = Math.min(into.length, chunk(), stream.length - pos);
    into.set(stream.subarray(pos, pos + n));
    reader.onRead(n);
    pos += n;
  }
  return { frames, errors };
}

describe("FrameReader: a byte stream into whole Kafka responses", () => {
  it("gives each response whole, size prefix included, however the reads split the stream", () => {
    for (const chunk of [1, 2, 3, 5, 4_096, 65_536, Number.MAX_SAFE_INTEGER]) {
      const { frames, errors } = readAll(STREAM, () => chunk);
      expect(errors).toEqual([]);
      expect(frames.map((f) => f.length)).toEqual(FRAMES.map((f) => f.length));
      expect(Buffer.concat(frames).equals(STREAM)).toBe(true);
    }
  });

  it("gives each response whole under random read sizes (seeded)", () => {
    const random = seededRandom(20261204);
    for (let run = 0; run < 50; run++) {
      const { frames } = readAll(STREAM, () => 1 + Math.floor(random() * random() * 100_000));
      expect(frames.length).toBe(FRAMES.length);
      expect(frames.every((f, i) => f.equals(FRAMES[i]!))).toBe(true);
    }
  });

  it("reads a large response's remaining bytes straight into the response's own buffer", () => {
    const reader = new FrameReader(
      () => {},
      () => {},
    );
    const big = frame(100_000, 1);
    let into = reader.nextBuffer();
    into.set(big.subarray(0, 1_000));
    reader.onRead(1_000);
    into = reader.nextBuffer();
    // The rest of the response, not the 64 KB scratch buffer: the socket writes there itself.
    expect(into.length).toBe(big.length - 1_000);
  });

  it("takes a large response's buffer from the thread's pool, which gets it back once its reader is done", () => {
    const [first] = readAll(frame(100_000, 1), () => 65_536).frames;
    const [second] = readAll(frame(90_000, 2), () => 65_536).frames;
    expect(second!.buffer).not.toBe(first!.buffer);
    // The fetch's records are a view inside the response: giving that back returns the whole buffer.
    giveBackResponse(first!.subarray(8, 5_000));
    giveBackResponse(first!.subarray(8, 5_000));
    const [third] = readAll(frame(99_000, 3), () => 65_536).frames;
    expect(third!.buffer).toBe(first!.buffer);
    expect(third!.equals(frame(99_000, 3))).toBe(true);
    const [fourth] = readAll(frame(99_000, 4), () => 65_536).frames;
    expect(fourth!.buffer).not.toBe(first!.buffer);
  });

  it("allocates small responses as they come and leaves other bytes alone when given back", () => {
    const [small] = readAll(frame(1_000, 1), () => 65_536).frames;
    giveBackResponse(small!);
    giveBackResponse(new Uint8Array(200_000));
    const [large] = readAll(frame(150_000, 2), () => 65_536).frames;
    expect(large!.buffer.byteLength).toBe(150_004);
  });

  it("reports a negative size as an error (the stream is out of step), and gives no frame", () => {
    const bad = Buffer.alloc(8);
    bad.writeInt32BE(-5, 0);
    const { frames, errors } = readAll(bad, () => 8);
    expect(frames).toEqual([]);
    expect(errors.map((e) => e.message)).toEqual(["Kafka broker sent a response of negative size -5: the connection is out of step"]);
  });
});

describe("connectFramed: a socket whose 'data' events are whole responses", () => {
  let server: net.Server | null = null;
  afterEach(async () => {
    server?.close();
    server = null;
  });

  /** A server that writes `bytes` to each client in `pieces`, pausing between writes so that reads split where the pieces do. */
  async function serve(bytes: Buffer, pieces: number[]): Promise<number> {
    server = net.createServer(async (client) => {
      let pos = 0;
      for (const n of pieces) {
        client.write(bytes.subarray(pos, pos + n));
        pos += n;
        await new Promise((r) => setTimeout(r, 2));
      }
      client.end(bytes.subarray(pos));
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    return (server.address() as net.AddressInfo).port;
  }

  it("emits every response as one 'data' event over a real connection", async () => {
    const port = await serve(STREAM, [2, 1, 5_000, 3, 70_000, 1, 65_536, 200_000, 17]);
    const got: Buffer[] = [];
    const socket = connectFramed("127.0.0.1", port, () => {});
    expect(isFramedSocket(socket)).toBe(true);
    socket.on("data", (f: Buffer) => got.push(Buffer.from(f)));
    await once(socket, "end");
    socket.destroy();
    expect(got.map((f) => f.length)).toEqual(FRAMES.map((f) => f.length));
    expect(got.every((f, i) => f.equals(FRAMES[i]!))).toBe(true);
  });

  it("destroys the socket with an error naming the fault when a response's size is negative", async () => {
    const bad = Buffer.alloc(4);
    bad.writeInt32BE(-1, 0);
    const port = await serve(Buffer.concat([frame(10, 0), bad, frame(10, 1)]), [14]);
    const got: Buffer[] = [];
    const socket = connectFramed("127.0.0.1", port, () => {});
    socket.on("data", (f: Buffer) => got.push(f));
    const [error] = (await once(socket, "error").catch((e: unknown) => [e])) as [Error];
    expect(error.message).toBe("Kafka broker sent a response of negative size -1: the connection is out of step");
    expect(got.map((f) => f.length)).toEqual([14]);
  });

  it("is not what a plain socket is", () => {
    expect(isFramedSocket(new net.Socket())).toBe(false);
  });
});
