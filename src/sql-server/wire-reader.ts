/**
 * Frontend messages of the Postgres wire protocol: framing of the byte stream into packets, and
 * reading the fields of one packet. Every length is checked before it is trusted, so a client
 * that sends garbage gets a protocol violation (08P01) and its connection closes; nothing it
 * sends can make the server wait for gigabytes or read past a message.
 */

/** Postgres's limit on a startup packet (MAX_STARTUP_PACKET_LENGTH). */
export const MAX_STARTUP_PACKET = 10_000;
/** Messages before authentication completes are small (a password, a SASL exchange): Postgres's PQ_SMALL_MESSAGE_LIMIT. */
export const MAX_AUTH_MESSAGE = 10_000;
/** A query text or a Bind with its parameters; Postgres allows 1 GB, a read-only query server needs far less. */
export const MAX_MESSAGE = 64 * 1024 * 1024;

/** The client broke the protocol: reported as FATAL 08P01, then the connection closes. */
export class ProtocolViolation extends Error {
  override name = "ProtocolViolation";
}

export interface Frame {
  /** The message type byte as a character; "" for a startup-phase packet, which has none. */
  readonly type: string;
  readonly body: Uint8Array;
}

/** Splits the incoming bytes into packets: untyped while starting up, typed afterwards. */
export class FrameReader {
  private pending: Uint8Array = new Uint8Array(0);

  push(chunk: Uint8Array): void {
    if (this.pending.length === 0) {
      this.pending = chunk;
      return;
    }
    const joined = new Uint8Array(this.pending.length + chunk.length);
    joined.set(this.pending);
    joined.set(chunk, this.pending.length);
    this.pending = joined;
  }

  /** The next complete packet, or null until more bytes arrive. */
  next(typed: boolean, maxLength: number): Frame | null {
    const header = typed ? 5 : 4;
    if (this.pending.length < header) return null;
    const view = new DataView(this.pending.buffer, this.pending.byteOffset, this.pending.byteLength);
    const length = view.getInt32(header - 4);
    const minimum = typed ? 4 : 8;
    if (length < minimum || length > maxLength) {
      throw new ProtocolViolation(typed ? `invalid message length ${length}` : `invalid length of startup packet`);
    }
    const total = header - 4 + length;
    if (this.pending.length < total) return null;
    const type = typed ? String.fromCharCode(this.pending[0]!) : "";
    const body = this.pending.subarray(header, total);
    this.pending = this.pending.subarray(total);
    return { type, body };
  }
}

const decoder = new TextDecoder("utf-8", { fatal: true });

/** Reads the fields of one packet body in order; reading past its end is a protocol violation. */
export class FieldReader {
  private at = 0;
  private readonly view: DataView;

  constructor(private readonly body: Uint8Array) {
    this.view = new DataView(body.buffer, body.byteOffset, body.byteLength);
  }

  get remaining(): number {
    return this.body.length - this.at;
  }

  int16(): number {
    this.need(2);
    const v = this.view.getInt16(this.at);
    this.at += 2;
    return v;
  }

  int32(): number {
    this.need(4);
    const v = this.view.getInt32(this.at);
    this.at += 4;
    return v;
  }

  bytes(n: number): Uint8Array {
    if (n < 0) throw new ProtocolViolation(`invalid field length ${n}`);
    this.need(n);
    const out = this.body.subarray(this.at, this.at + n);
    this.at += n;
    return out;
  }

  /** A NUL-terminated UTF-8 string. */
  cstring(): string {
    const end = this.body.indexOf(0, this.at);
    if (end < 0) throw new ProtocolViolation("invalid string in message: no terminator");
    const s = text(this.body.subarray(this.at, end));
    this.at = end + 1;
    return s;
  }

  /** An int16 count, then that many int16s (format codes) or int32s (type OIDs). */
  int16List(): number[] {
    return this.list(() => this.int16());
  }

  int32List(): number[] {
    return this.list(() => this.int32());
  }

  private list(read: () => number): number[] {
    const n = this.int16();
    if (n < 0) throw new ProtocolViolation(`invalid count ${n}`);
    return Array.from({ length: n }, read);
  }

  private need(n: number): void {
    if (this.at + n > this.body.length) throw new ProtocolViolation("message is shorter than its fields");
  }
}

/** UTF-8 text; invalid UTF-8 is Postgres's 22021 in a query, a protocol violation here where it is framing. */
export function text(bytes: Uint8Array): string {
  try {
    return decoder.decode(bytes);
  } catch {
    throw new ProtocolViolation("invalid byte sequence for encoding \"UTF8\"");
  }
}
