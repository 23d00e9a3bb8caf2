import * as net from "node:net";
import { BytesPool } from "../../kernels/bytes-pool.js";

/**
 * Plaintext broker sockets that hand kafkajs whole responses. Every Kafka response is an int32
 * size and that many bytes. A plain socket delivers a fetch response of 8 MB as ~130 chunks, each
 * a fresh native buffer, which kafkajs then concatenates into one more: two allocations and a
 * copy of every byte read. They are external memory to V8, and its collector runs a full mark
 * each time external memory has grown by 64 MB: on a fast Kafka source that was most of the
 * garbage collection (W1: 60 full collections per 2 M records).
 *
 * A framed socket reads with Node's `onread` into a buffer it owns. Once a response's size is
 * known it allocates the response once and lets the socket read the rest of it straight into that
 * buffer; the bytes that arrive with the size (and small responses) go through a reused scratch
 * buffer. Each 'data' event then carries exactly one response, size prefix included, so a
 * connection that takes whole frames (`deliverWholeFrames` in ./kafkajs-internals.ts) passes
 * the payload on without copying it again.
 *
 * A response's buffer (from 4 KB up) comes from the thread's pool, and goes back to it when its reader is
 * done with it (`giveBackResponse`: the Kafka source, once a fetch's record batches are decoded
 * into columns of their own). A response nobody gives back is left to the collector.
 *
 * TLS sockets keep Node's own reads (TLS decrypts into buffers of its own), and so do SASL
 * connections, whose handshake kafkajs reads as raw chunks.
 */

/** The scratch buffer's size: the most a read takes while no large response is being filled. */
const SCRATCH_BYTES = 64 * 1024;
/** A response with at least this many bytes left is read straight into its own buffer. */
const DIRECT_READ_MIN = 4 * 1024;
/** The size prefix's length. */
const SIZE_BYTES = 4;

/**
 * Responses read straight into their own buffer take it from the pool. Smaller ones (produce
 * acknowledgements, most metadata) are copied out of the scratch buffer into Node's slab. Small
 * fetch responses are pooled too: a real-time task's tails fetch a few tens of KB at a time,
 * hundreds of times a second.
 */
const POOLED_MIN = DIRECT_READ_MIN;
/**
 * Response buffers kept per thread: for each of two partitions read at once (a task's, or a
 * real-time task's two tails), the fetch being decoded and the one sent ahead; none larger than
 * 64 MB (8 times the default kafka.max.partition.fetch.bytes).
 */
const responses = new BytesPool(4, 64 * 1024 * 1024);
/** The pool buffer behind each response taken from it, by the response's ArrayBuffer. */
const pooled = new WeakMap<ArrayBufferLike, Uint8Array>();

function responseBuffer(length: number): Buffer {
  if (length < POOLED_MIN) return Buffer.allocUnsafe(length);
  const whole = responses.take(length);
  pooled.set(whole.buffer, whole);
  return Buffer.from(whole.buffer, whole.byteOffset, length);
}

/**
 * Gives the response that `bytes` lies in back to the thread's pool, once nothing reads it (or
 * any view of it) any more. Bytes of any other buffer are left alone.
 */
export function giveBackResponse(bytes: Uint8Array): void {
  const whole = pooled.get(bytes.buffer);
  if (whole === undefined) return;
  pooled.delete(bytes.buffer);
  responses.giveBack(whole);
}

const framed = new WeakSet<net.Socket>();

/** Whether every 'data' event of `socket` carries exactly one whole response (see above). */
export const isFramedSocket = (socket: unknown): boolean => framed.has(socket as net.Socket);

/**
 * Splits a byte stream into size-prefixed frames. The owner asks `nextBuffer()` where the next
 * read should go, and tells `onRead(n)` how many bytes it put at that buffer's start.
 */
export class FrameReader {
  private readonly scratch = Buffer.allocUnsafeSlow(SCRATCH_BYTES);
  /** The size prefix while it is incomplete. */
  private readonly prefix = Buffer.alloc(SIZE_BYTES);
  private prefixFilled = 0;
  /** The response being filled, prefix included. */
  private frame: Buffer | null = null;
  private frameFilled = 0;
  /** Whether the buffer last handed out is `frame`'s unfilled tail (else it is the scratch). */
  private direct = false;

  constructor(
    private readonly onFrame: (frame: Buffer) => void,
    private readonly onError: (error: Error) => void,
  ) {}

  nextBuffer(): Uint8Array {
    const left = this.frame === null ? 0 : this.frame.length - this.frameFilled;
    this.direct = left >= DIRECT_READ_MIN;
    return this.direct ? this.frame!.subarray(this.frameFilled) : this.scratch;
  }

  onRead(n: number): void {
    if (this.direct) {
      this.frameFilled += n;
      this.completeFrame();
      return;
    }
    let pos = 0;
    while (pos < n) {
      if (this.frame === null) {
        const take = Math.min(SIZE_BYTES - this.prefixFilled, n - pos);
        this.scratch.copy(this.prefix, this.prefixFilled, pos, pos + take);
        this.prefixFilled += take;
        pos += take;
        if (this.prefixFilled < SIZE_BYTES) return;
        const size = this.prefix.readInt32BE(0);
        if (size < 0) {
          this.onError(new Error(`Kafka broker sent a response of negative size ${size}: the connection is out of step`));
          return;
        }
        this.frame = responseBuffer(SIZE_BYTES + size);
        this.prefix.copy(this.frame, 0);
        this.frameFilled = SIZE_BYTES;
        this.prefixFilled = 0;
      }
      const take = Math.min(this.frame.length - this.frameFilled, n - pos);
      this.scratch.copy(this.frame, this.frameFilled, pos, pos + take);
      this.frameFilled += take;
      pos += take;
      this.completeFrame();
    }
  }

  private completeFrame(): void {
    const frame = this.frame;
    if (frame === null || this.frameFilled < frame.length) return;
    this.frame = null;
    this.frameFilled = 0;
    this.onFrame(frame);
  }
}

/** A plaintext connection to `host:port` whose 'data' events are whole responses (see above). */
export function connectFramed(host: string, port: number, onConnect: () => void): net.Socket {
  const reader = new FrameReader(
    (frame) => socket.emit("data", frame),
    (error) => socket.destroy(error),
  );
  const socket = net.connect(
    {
      host,
      port,
      onread: {
        buffer: () => reader.nextBuffer(),
        callback: (n: number) => {
          reader.onRead(n);
          return true;
        },
      },
    },
    onConnect,
  );
  framed.add(socket);
  return socket;
}
