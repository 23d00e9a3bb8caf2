/**
 * Backend messages of the Postgres wire protocol (protocol 3.0), written into one growing buffer:
 * a reply of many messages (a result's DataRows) leaves as one socket write. Each message is a
 * type byte, an int32 length that counts itself but not the type byte, and the body.
 *
 * https://www.postgresql.org/docs/current/protocol-message-formats.html
 */

const INITIAL_CAPACITY = 16 * 1024;
const encoder = new TextEncoder();

/** The transaction status a ReadyForQuery reports: idle, in a transaction block, in a failed one. */
export type TransactionStatus = "I" | "T" | "E";

/** The fields of an ErrorResponse or NoticeResponse (Postgres's error fields, by their letters). */
export interface ReportFields {
  readonly severity: "ERROR" | "FATAL" | "WARNING" | "NOTICE";
  readonly code: string;
  readonly message: string;
  readonly detail?: string;
  readonly hint?: string;
  /** 1-based character position in the query text (Postgres's `P` field). */
  readonly position?: number;
}

/** One column of a RowDescription. */
export interface ColumnDescription {
  readonly name: string;
  readonly typeOid: number;
  readonly typeSize: number;
  /** 0 text, 1 binary. */
  readonly format: 0 | 1;
}

export class MessageWriter {
  private buf = new Uint8Array(INITIAL_CAPACITY);
  private view = new DataView(this.buf.buffer);
  private at = 0;
  private start = -1;

  /** Bytes written so far, not yet taken. */
  get length(): number {
    return this.at;
  }

  /** Hands out what was written and starts over. */
  take(): Uint8Array {
    const out = this.buf.slice(0, this.at);
    this.at = 0;
    if (this.buf.length > 4 * INITIAL_CAPACITY) {
      this.buf = new Uint8Array(INITIAL_CAPACITY);
      this.view = new DataView(this.buf.buffer);
    }
    return out;
  }

  begin(type: string): this {
    this.ensure(5);
    this.buf[this.at] = type.charCodeAt(0);
    this.start = this.at + 1;
    this.at += 5;
    return this;
  }

  end(): this {
    this.view.setInt32(this.start, this.at - this.start);
    this.start = -1;
    return this;
  }

  int16(n: number): this {
    this.ensure(2);
    this.view.setInt16(this.at, n);
    this.at += 2;
    return this;
  }

  int32(n: number): this {
    this.ensure(4);
    this.view.setInt32(this.at, n);
    this.at += 4;
    return this;
  }

  byte(b: number): this {
    this.ensure(1);
    this.buf[this.at++] = b;
    return this;
  }

  bytes(b: Uint8Array, from = 0, to = b.length): this {
    this.ensure(to - from);
    this.buf.set(b.subarray(from, to), this.at);
    this.at += to - from;
    return this;
  }

  /** A length-prefixed value (DataRow fields, SASL data); null as length -1. */
  value(b: Uint8Array | null): this {
    if (b === null) return this.int32(-1);
    return this.int32(b.length).bytes(b);
  }

  cstring(s: string): this {
    return this.bytes(encoder.encode(s)).byte(0);
  }

  // ---- whole messages ----

  authentication(code: number, data?: Uint8Array): this {
    this.begin("R").int32(code);
    if (data) this.bytes(data);
    return this.end();
  }

  parameterStatus(name: string, value: string): this {
    return this.begin("S").cstring(name).cstring(value).end();
  }

  backendKeyData(processId: number, secret: number): this {
    return this.begin("K").int32(processId).int32(secret).end();
  }

  readyForQuery(status: TransactionStatus): this {
    return this.begin("Z").byte(status.charCodeAt(0)).end();
  }

  rowDescription(columns: readonly ColumnDescription[]): this {
    this.begin("T").int16(columns.length);
    for (const c of columns) {
      // Table OID and column number 0: a computed column; type modifier -1: none.
      this.cstring(c.name).int32(0).int16(0).int32(c.typeOid).int16(c.typeSize).int32(-1).int16(c.format);
    }
    return this.end();
  }

  parameterDescription(typeOids: readonly number[]): this {
    this.begin("t").int16(typeOids.length);
    for (const oid of typeOids) this.int32(oid);
    return this.end();
  }

  commandComplete(tag: string): this {
    return this.begin("C").cstring(tag).end();
  }

  /** A message of a type byte and no body: ParseComplete "1", BindComplete "2", CloseComplete "3", NoData "n", PortalSuspended "s", EmptyQueryResponse "I". */
  bare(type: "1" | "2" | "3" | "n" | "s" | "I"): this {
    return this.begin(type).end();
  }

  errorResponse(fields: ReportFields): this {
    return this.report("E", fields);
  }

  noticeResponse(fields: ReportFields): this {
    return this.report("N", fields);
  }

  private report(type: "E" | "N", f: ReportFields): this {
    this.begin(type);
    // S is the localized severity, V the untranslated one (Postgres 9.6+); both the same here.
    this.byte(0x53).cstring(f.severity).byte(0x56).cstring(f.severity).byte(0x43).cstring(f.code).byte(0x4d).cstring(f.message);
    if (f.detail !== undefined) this.byte(0x44).cstring(f.detail);
    if (f.hint !== undefined) this.byte(0x48).cstring(f.hint);
    if (f.position !== undefined) this.byte(0x50).cstring(String(f.position));
    return this.byte(0).end();
  }

  private ensure(n: number): void {
    if (this.at + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.at + n) size *= 2;
    const bigger = new Uint8Array(size);
    bigger.set(this.buf.subarray(0, this.at));
    this.buf = bigger;
    this.view = new DataView(bigger.buffer);
  }
}
