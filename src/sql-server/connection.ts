import type { Socket } from "node:net";
import { AUTH_OK, ClientAuthentication, type AuthSecrets } from "./authentication.js";
import { errorReport, PgError, SQLSTATE } from "./error-response.js";
import { QueryProtocol } from "./query-protocol.js";
import { SessionSettings } from "./session-settings.js";
import type { SqlEngine } from "./sql-engine.js";
import type { SessionState } from "./statement-runner.js";
import { FieldReader, FrameReader, MAX_AUTH_MESSAGE, MAX_MESSAGE, MAX_STARTUP_PACKET, ProtocolViolation } from "./wire-reader.js";
import { MessageWriter, type TransactionStatus } from "./wire-writer.js";

/**
 * One client connection: startup (SSL and GSS encryption declined, cancel requests passed to the
 * server), authentication, then the query phase. Messages are handled one at a time, in order;
 * the socket is paused meanwhile, so a client cannot queue up unbounded work. Whatever a client
 * does, its failure stays in its connection: a protocol violation answers FATAL 08P01 and closes
 * it, an error in a statement answers ERROR and the connection carries on.
 */

/** Request codes of the untyped packets a client may open with. */
const PROTOCOL_3_0 = 196_608;
const SSL_REQUEST = 80_877_103;
const GSSENC_REQUEST = 80_877_104;
const CANCEL_REQUEST = 80_877_102;
/** How long a connection we ended may take to read its last messages before its socket is destroyed. */
const CLOSE_GRACE_MS = 1000;

export interface ConnectionServer {
  readonly engine: SqlEngine;
  readonly secrets: AuthSecrets;
  /** A cancel request arrived on this connection for another one. */
  cancel(processId: number, secretKey: number): void;
  /** True when the server already has as many connections as it allows. */
  readonly overLimit: boolean;
  closed(connection: Connection): void;
}

export class Connection {
  readonly out = new MessageWriter();
  private readonly frames = new FrameReader();
  private phase: "startup" | "authentication" | "query" | "closed" = "startup";
  private authentication: ClientAuthentication | null = null;
  private query: QueryProtocol | null = null;
  private session: (SessionState & { settings: SessionSettings }) | null = null;
  private readonly authTimer: NodeJS.Timeout;
  private busy = false;
  private cancelRunning: ((reason: PgError) => void) | null = null;

  constructor(
    private readonly socket: Socket,
    private readonly server: ConnectionServer,
    /** The connection's key for cancel requests, sent in BackendKeyData. */
    readonly processId: number,
    readonly secretKey: number,
  ) {
    socket.setNoDelay(true);
    socket.on("data", (chunk: Buffer) => {
      this.frames.push(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
      void this.pump();
    });
    socket.on("error", () => this.destroy());
    socket.on("close", () => this.destroy());
    // Postgres's authentication_timeout: a client that neither authenticates nor leaves is let go.
    this.authTimer = setTimeout(() => {
      if (this.phase === "authentication") this.fatal(new PgError(SQLSTATE.queryCanceled, "canceling authentication due to timeout", { severity: "FATAL" }));
      else this.destroy();
    }, server.secrets.settings.authenticationTimeoutMs);
  }

  /** Stops the statement running on this connection (a cancel request, the server closing). */
  cancel(reason: PgError): void {
    this.cancelRunning?.(reason);
  }

  /** Ends the connection with a FATAL message (the server shutting down, a protocol violation). */
  fatal(error: PgError | ProtocolViolation): void {
    if (this.phase === "closed") return;
    const fields = error instanceof ProtocolViolation ? { severity: "FATAL" as const, code: SQLSTATE.protocolViolation, message: error.message } : errorReport(error);
    this.out.errorResponse({ ...fields, severity: "FATAL" });
    this.socket.end(this.out.take());
    this.destroy();
  }

  private destroy(): void {
    if (this.phase === "closed") return;
    this.phase = "closed";
    clearTimeout(this.authTimer);
    this.cancel(new PgError(SQLSTATE.adminShutdown, "connection closed"));
    // A socket we ended finishes sending first, but a client that never closes its side is not waited for.
    if (!this.socket.writableEnded) this.socket.destroy();
    else setTimeout(() => this.socket.destroy(), CLOSE_GRACE_MS).unref();
    this.server.closed(this);
  }

  /** Handles every complete message received, in order, one at a time. */
  private async pump(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    this.socket.pause();
    try {
      for (;;) {
        if (this.isClosed) return;
        const typed = this.phase !== "startup";
        const frame = this.frames.next(typed, this.phase === "query" ? MAX_MESSAGE : typed ? MAX_AUTH_MESSAGE : MAX_STARTUP_PACKET);
        if (!frame) break;
        const keepOpen = typed ? await this.message(frame.type, frame.body) : await this.startupPacket(frame.body);
        if (!keepOpen) {
          this.socket.end(this.out.take());
          this.destroy();
          return;
        }
      }
    } catch (e) {
      if (this.phase === "startup" && e instanceof ProtocolViolation) {
        // Not a Postgres client, or a broken one: Postgres closes without an answer it could not read.
        this.destroy();
      } else if (e instanceof ProtocolViolation || (e instanceof PgError && e.extra.severity === "FATAL")) {
        this.fatal(e);
      } else {
        this.fatal(new PgError(SQLSTATE.internalError, `internal error: ${(e as Error)?.message ?? String(e)}`, { severity: "FATAL" }));
      }
      return;
    } finally {
      this.busy = false;
    }
    if (!this.isClosed) this.socket.resume();
  }

  /** (A method, not a test of `phase`: awaits in pump() may have closed the connection meanwhile.) */
  private get isClosed(): boolean {
    return this.phase === "closed";
  }

  private async startupPacket(body: Uint8Array): Promise<boolean> {
    const r = new FieldReader(body);
    const code = r.int32();
    if (code === SSL_REQUEST || code === GSSENC_REQUEST) {
      // No TLS or GSS encryption here: "N", and the client carries on in the clear (or gives up, if it requires them).
      this.socket.write("N");
      return true;
    }
    if (code === CANCEL_REQUEST) {
      this.server.cancel(r.int32(), r.int32());
      return false;
    }
    if (code >> 16 !== 3) throw new PgError(SQLSTATE.featureNotSupported, `unsupported frontend protocol ${code >> 16}.${code & 0xffff}: server supports 3.0`, { severity: "FATAL" });
    const params = new Map<string, string>();
    for (let name = r.cstring(); name !== ""; name = r.cstring()) params.set(name, r.cstring());
    if (code !== PROTOCOL_3_0) {
      // A newer 3.x minor version or protocol options: say which version and options this server speaks.
      const options = [...params.keys()].filter((k) => k.startsWith("_pq_."));
      this.out.begin("v").int32(PROTOCOL_3_0).int32(options.length);
      for (const o of options) this.out.cstring(o);
      this.out.end();
    }
    const user = params.get("user");
    if (!user) throw new PgError(SQLSTATE.invalidAuthorization, "no PostgreSQL user name specified in startup packet", { severity: "FATAL" });
    if (this.server.overLimit) throw new PgError(SQLSTATE.tooManyConnections, "sorry, too many clients already", { severity: "FATAL" });
    const settings = new SessionSettings(user, params.get("application_name") ?? "", this.server.secrets.settings.statementTimeoutMs);
    this.session = { engine: this.server.engine, settings, transaction: "I" as TransactionStatus, deallocate: (name) => this.query!.deallocate(name) };
    this.authentication = new ClientAuthentication(this.server.secrets, user);
    this.phase = "authentication";
    if (this.authentication.start(this.out)) this.authenticated();
    await this.flush();
    return true;
  }

  private async message(type: string, body: Uint8Array): Promise<boolean> {
    if (this.phase === "authentication") {
      if (type !== "p") throw new ProtocolViolation(`expected password response, got message type ${type.charCodeAt(0)}`);
      if (await this.authentication!.respond(body, this.out)) this.authenticated();
      await this.flush();
      return true;
    }
    return this.query!.handle(type, body);
  }

  private authenticated(): void {
    clearTimeout(this.authTimer);
    this.phase = "query";
    this.out.authentication(AUTH_OK);
    for (const [name, value] of this.session!.settings.reported()) this.out.parameterStatus(name, value);
    this.out.backendKeyData(this.processId, this.secretKey);
    this.out.readyForQuery("I");
    this.query = new QueryProtocol({
      out: this.out,
      session: this.session!,
      flush: () => this.flush(),
      guard: (work) => this.guard(work),
    });
  }

  /** Sends what was written; waits while the socket's buffer is full (a client that reads slowly). */
  private async flush(): Promise<void> {
    if (this.out.length === 0 || this.phase === "closed") return;
    if (this.socket.write(this.out.take())) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        this.socket.off("drain", done);
        this.socket.off("close", done);
        resolve();
      };
      this.socket.on("drain", done);
      this.socket.on("close", done);
    });
  }

  /** Runs a statement's work, ending it with 57014 at the statement timeout or on a cancel request. */
  private guard<T>(work: () => Promise<T>): Promise<T> {
    const timeoutMs = this.session!.settings.statementTimeoutMs;
    return new Promise<T>((resolve, reject) => {
      let settled = false;
      const finish = (f: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.cancelRunning = null;
        f();
      };
      const timer = timeoutMs > 0 ? setTimeout(() => finish(() => reject(new PgError(SQLSTATE.queryCanceled, "canceling statement due to statement timeout"))), timeoutMs) : undefined;
      this.cancelRunning = (reason) => finish(() => reject(reason));
      work().then(
        (v) => finish(() => resolve(v)),
        (e) => finish(() => reject(e)),
      );
    });
  }
}
