import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { createScramSha256Data, verifyScramSha256Password, type ScramSha256Data } from "pg-gateway";
import type { SqlServerSettings } from "../config/sql-server-options.js";
import { PgError, SQLSTATE } from "./error-response.js";
import { FieldReader, ProtocolViolation, text } from "./wire-reader.js";
import type { MessageWriter } from "./wire-writer.js";

/**
 * Password authentication as Postgres does it: SCRAM-SHA-256 (RFC 5802/7677, the SASL exchange
 * of https://www.postgresql.org/docs/current/sasl-authentication.html), or a clear-text password,
 * or none ("trust"). pg-gateway supplies the SCRAM secrets and the proof check; the exchange is
 * driven here, so that failures answer with Postgres's codes (28P01 for a wrong password).
 *
 * As in Postgres, an unknown user fails exactly like a wrong password (28P01, same message, a
 * SCRAM exchange with a salt that is stable per name), so that nobody learns which names exist.
 */

/** Postgres's Authentication request codes. */
export const AUTH_OK = 0;
const AUTH_CLEARTEXT = 3;
const AUTH_SASL = 10;
const AUTH_SASL_CONTINUE = 11;
const AUTH_SASL_FINAL = 12;
const SCRAM = "SCRAM-SHA-256";
/** Postgres's default scram_iterations. */
const SCRAM_ITERATIONS = 4096;

/** The server's password secrets, computed once: SCRAM keys per user, never the passwords for SCRAM. */
export class AuthSecrets {
  private constructor(
    readonly settings: SqlServerSettings,
    private readonly scram: ReadonlyMap<string, ScramSha256Data>,
    private readonly mockKey: Buffer,
  ) {}

  static async create(settings: SqlServerSettings): Promise<AuthSecrets> {
    const scram = new Map<string, ScramSha256Data>();
    if (settings.auth === "scram-sha-256") {
      for (const [user, password] of settings.users) scram.set(user, await createScramSha256Data(password, SCRAM_ITERATIONS));
    }
    return new AuthSecrets(settings, scram, randomBytes(32));
  }

  /** SCRAM data for a user; for an unknown one, a salt derived from the name and keys no proof matches. */
  scramData(user: string): ScramSha256Data {
    const known = this.scram.get(user);
    if (known) return known;
    const salt = createHmac("sha256", this.mockKey).update(user).digest().subarray(0, 16).toString("base64");
    const unmatchable = randomBytes(32).toString("base64");
    return { salt, iterations: SCRAM_ITERATIONS, storedKey: unmatchable, serverKey: unmatchable };
  }

  /** A clear-text password check that takes the same time whatever the password or user. */
  passwordMatches(user: string, given: string): boolean {
    const expected = this.settings.users.get(user);
    const digest = (s: string) => createHash("sha256").update(s).digest();
    const same = timingSafeEqual(digest(expected ?? randomBytes(16).toString("hex")), digest(given));
    return expected !== undefined && same;
  }
}

/** One connection's authentication: start() after the startup packet, then respond() to each password message until done. */
export class ClientAuthentication {
  private step: "password" | "scram-first" | "scram-final" | "done" = "done";
  private scram: { data: ScramSha256Data; clientFirstBare: string; serverFirst: string; nonce: string; gs2Header: string } | null = null;

  constructor(
    private readonly secrets: AuthSecrets,
    private readonly user: string,
  ) {}

  /** Writes the first authentication request; true when none is needed (trust: already authenticated). */
  start(out: MessageWriter): boolean {
    switch (this.secrets.settings.auth) {
      case "trust":
        return true;
      case "password":
        this.step = "password";
        out.authentication(AUTH_CLEARTEXT);
        return false;
      case "scram-sha-256":
        this.step = "scram-first";
        out.authentication(AUTH_SASL, new TextEncoder().encode(`${SCRAM}\0\0`));
        return false;
    }
  }

  /** Handles a password message ('p'); true once the client is authenticated (AuthenticationOk is the caller's). */
  async respond(body: Uint8Array, out: MessageWriter): Promise<boolean> {
    const r = new FieldReader(body);
    switch (this.step) {
      case "password": {
        const given = r.cstring();
        if (!this.secrets.passwordMatches(this.user, given)) throw this.failed();
        this.step = "done";
        return true;
      }
      case "scram-first": {
        const mechanism = r.cstring();
        if (mechanism !== SCRAM) throw new PgError(SQLSTATE.protocolViolation, "client selected an invalid SASL authentication mechanism", { severity: "FATAL" });
        const length = r.int32();
        this.clientFirst(text(r.bytes(length)), out);
        this.step = "scram-final";
        return false;
      }
      case "scram-final": {
        await this.clientFinal(text(r.bytes(r.remaining)), out);
        this.step = "done";
        return true;
      }
      case "done":
        throw new ProtocolViolation("unexpected password message");
    }
  }

  private clientFirst(message: string, out: MessageWriter): void {
    // gs2 header: "n,," (no channel binding) or "y,," (client could bind, thinks the server cannot).
    const m = /^([ny]),(?:a=[^,]*)?,(.*)$/s.exec(message);
    if (!m) {
      const binding = message.startsWith("p=");
      throw new PgError(SQLSTATE.protocolViolation, binding ? "channel binding is not supported: the server does not use TLS" : "malformed SCRAM message", { severity: "FATAL" });
    }
    const clientFirstBare = m[2]!;
    const clientNonce = /(?:^|,)r=([^,]+)/.exec(clientFirstBare)?.[1];
    if (!clientNonce) throw new PgError(SQLSTATE.protocolViolation, "malformed SCRAM message: no nonce", { severity: "FATAL" });
    const data = this.secrets.scramData(this.user);
    const nonce = clientNonce + randomBytes(18).toString("base64");
    const serverFirst = `r=${nonce},s=${data.salt},i=${data.iterations}`;
    this.scram = { data, clientFirstBare, serverFirst, nonce, gs2Header: message.slice(0, message.length - clientFirstBare.length) };
    out.authentication(AUTH_SASL_CONTINUE, new TextEncoder().encode(serverFirst));
  }

  private async clientFinal(message: string, out: MessageWriter): Promise<void> {
    const s = this.scram!;
    const proofAt = message.lastIndexOf(",p=");
    const withoutProof = proofAt < 0 ? message : message.slice(0, proofAt);
    const attributes = new Map(withoutProof.split(",").map((a) => [a.slice(0, 1), a.slice(2)] as const));
    const proof = proofAt < 0 ? "" : message.slice(proofAt + 3);
    if (attributes.get("r") !== s.nonce || attributes.get("c") !== Buffer.from(s.gs2Header).toString("base64") || proof === "") {
      throw new PgError(SQLSTATE.protocolViolation, "malformed SCRAM message: nonce or channel binding does not match", { severity: "FATAL" });
    }
    const authMessage = `${s.clientFirstBare},${s.serverFirst},${withoutProof}`;
    // A proof that is not even base64 is as wrong as a wrong one.
    const valid = await verifyScramSha256Password({ authMessage, clientProof: proof, storedKey: s.data.storedKey }).catch(() => false);
    if (!valid) throw this.failed();
    const serverSignature = createHmac("sha256", Buffer.from(s.data.serverKey, "base64")).update(authMessage).digest("base64");
    out.authentication(AUTH_SASL_FINAL, new TextEncoder().encode(`v=${serverSignature}`));
  }

  private failed(): PgError {
    return new PgError(SQLSTATE.invalidPassword, `password authentication failed for user "${this.user}"`, { severity: "FATAL" });
  }
}
