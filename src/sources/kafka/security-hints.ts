import { SluiceError } from "../../errors/errors.js";
import type { KafkaSecurity } from "./kafka-security.js";

/**
 * A connection refused for a security reason that trying again cannot fix (a wrong password, an
 * untrusted, expired or wrongly named certificate, a missing client certificate): offset lookups
 * fail at once with it instead of spending their retries.
 */
export class KafkaSecurityError extends SluiceError {
  override name = "KafkaSecurityError";
}

export interface SecurityFailure {
  /** What to change, in the words of the options. */
  readonly hint: string;
  /** True when the broker's or the client's verdict is final; false for guesses from a closed connection. */
  readonly definitive: boolean;
}

/**
 * What to do about a connection that failed for a security reason, in the words of the options
 * that fix it. TLS errors come from Node (codes of OpenSSL's verify results), SASL errors from the
 * broker through kafkajs; a client speaking the wrong protocol to a listener only sees the
 * connection close, so that hint names the protocol it used. Null when the failure looks unrelated
 * to security (a broker that is down keeps its own message).
 */
export function securityFailure(error: unknown, security: KafkaSecurity): SecurityFailure | null {
  const hint = securityHint(error, security);
  return hint === null ? null : { hint: hint.text, definitive: hint.definitive };
}

function securityHint(error: unknown, security: KafkaSecurity): { text: string; definitive: boolean } | null {
  const final = (text: string) => ({ text, definitive: true });
  const guess = (text: string) => ({ text, definitive: false });
  const { codes, text } = flatten(error);
  const has = (...c: string[]) => c.some((x) => codes.has(x));
  const tls = security.tls !== null;

  if (has("CERT_HAS_EXPIRED") || /certificate has expired/i.test(text)) {
    return final("the broker's certificate has expired: it must be renewed on the broker (an expired certificate is never accepted)");
  }
  if (has("CERT_NOT_YET_VALID") || /certificate is not yet valid/i.test(text)) {
    return final("the broker's certificate is not valid yet: check the clocks of this machine and the broker");
  }
  if (has("ERR_TLS_CERT_ALTNAME_INVALID") || /does not match certificate's altnames/i.test(text)) {
    return final(
      "the broker's certificate does not name the host connected to: connect by a name the certificate lists, or set " +
        'kafka.ssl.endpoint.identification.algorithm to "" to skip hostname verification (not recommended)',
    );
  }
  if (
    has("SELF_SIGNED_CERT_IN_CHAIN", "DEPTH_ZERO_SELF_SIGNED_CERT", "UNABLE_TO_GET_ISSUER_CERT_LOCALLY", "UNABLE_TO_VERIFY_LEAF_SIGNATURE", "UNABLE_TO_GET_ISSUER_CERT") ||
    /self[- ]signed certificate|unable to (get local issuer|verify the first) certificate/i.test(text)
  ) {
    return final("the broker's certificate is not signed by a CA this client trusts: set kafka.ssl.truststore.location (or kafka.ssl.truststore.certificates) to the CA that signed it");
  }
  if (tls && /certificate required|alert bad certificate|alert unknown ca|alert certificate unknown|alert handshake failure/i.test(text)) {
    const own = security.tls!.cert !== null || security.tls!.pfx !== null;
    return final(
      own
        ? "the broker refused this client's certificate: it must be signed by a CA the broker trusts, and be valid"
        : "the broker asks for a client certificate (mutual TLS): set kafka.ssl.keystore.location, or kafka.ssl.keystore.key and kafka.ssl.keystore.certificate.chain",
    );
  }
  if (/SASL .*authentication failed|Authentication failed/i.test(text) || has("SASL_AUTHENTICATION_FAILED")) {
    const sasl = security.sasl;
    if (sasl?.mechanism === "OAUTHBEARER") return final("the broker refused the token from kafka.sasl.login.callback.handler.module");
    if (sasl) return final(`the broker refused ${sasl.mechanism} authentication as "${sasl.username}": check the username and password in kafka.sasl.jaas.config, and kafka.sasl.mechanism`);
  }
  if (/UNSUPPORTED_SASL_MECHANISM|mechanism .* (is not|not) (enabled|supported)/i.test(text) && security.sasl) {
    return final(`the broker does not enable SASL mechanism ${security.sasl.mechanism} on this listener: set kafka.sasl.mechanism to one it enables`);
  }
  if (security.sasl !== null && /current SASL state|ILLEGAL_SASL_STATE/.test(text)) {
    return final(`the listener does not use SASL: set kafka.security.protocol to ${tls ? "SSL" : "PLAINTEXT"} (it is ${security.protocol}), or connect to the broker's SASL listener`);
  }
  if (tls && (has("EPROTO", "ERR_SSL_WRONG_VERSION_NUMBER") || /disconnected before secure TLS connection|wrong version number|packet length too long/i.test(text))) {
    return guess(`the TLS handshake failed: the listener at this address may not use TLS (kafka.security.protocol is ${security.protocol})`);
  }
  if (/Closed connection|Connection closed|ECONNRESET|socket hang up|Connection error: read/i.test(text)) {
    if (!tls) return guess(`the broker closed the connection before answering: if the listener uses TLS, set kafka.security.protocol to SSL or SASL_SSL (it is ${security.protocol})`);
    if (security.sasl === null) return guess("the broker closed the connection before answering: if the listener expects SASL, set kafka.security.protocol to SASL_SSL and kafka.sasl.mechanism");
  }
  return null;
}

/** Every message and code along an error's chain (kafkajs wraps causes in `originalError`). */
function flatten(error: unknown): { codes: Set<string>; text: string } {
  const codes = new Set<string>();
  const messages: string[] = [];
  let e = error as { message?: unknown; code?: unknown; type?: unknown; originalError?: unknown; cause?: unknown } | null | undefined;
  for (let depth = 0; e && depth < 8; depth++) {
    if (typeof e.message === "string") messages.push(e.message);
    if (typeof e.code === "string") codes.add(e.code);
    if (typeof e.type === "string") codes.add(e.type);
    e = (e.originalError ?? e.cause) as typeof e;
  }
  return { codes, text: messages.join(" | ") };
}
