// The test broker's secure listeners and TLS material, as scripts/kafka.sh writes them at each start
// (listeners: .cache/kafka/run/listeners; certificates and keys: .cache/kafka/run/tls, by scripts/kafka/make-tls.sh).
import { existsSync, readFileSync } from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

const RUN = fileURLToPath(new URL("../../.cache/kafka/run/", import.meta.url));

export type SecureListener = "PLAINTEXT" | "SSL" | "MTLS" | "SASL_SSL" | "SASL_PLAINTEXT" | "BADHOST" | "EXPIRED";

/** host:port of one of the test broker's listeners. */
export function listener(name: SecureListener): string {
  const file = path.join(RUN, "listeners");
  if (process.env.KAFKA_BOOTSTRAP_SERVERS?.trim() || !existsSync(file)) {
    throw new Error(
      "the security tests need the project's own broker, which has the SSL, SASL and mutual-TLS listeners " +
        `(scripts/kafka.sh start writes ${file}); unset KAFKA_BOOTSTRAP_SERVERS`,
    );
  }
  const line = readFileSync(file, "utf8")
    .split("\n")
    .find((l) => l.startsWith(`${name} `));
  if (!line) throw new Error(`the test broker has no ${name} listener (${file}): restart it with scripts/kafka.sh stop && scripts/kafka.sh start`);
  return line.slice(name.length + 1).trim();
}

/** A file of the broker's TLS material (see scripts/kafka/make-tls.sh for what each is). */
export function tlsFile(name: string): string {
  return path.join(RUN, "tls", name);
}

/** The password of tls/client.p12, tls/truststore.p12 and tls/client.encrypted.key. */
export const TLS_STORE_PASSWORD = "sluice-test-store";

/** The SASL user the broker knows (PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512). */
export const SASL_USER = { username: "alice", password: "alice-secret" } as const;

export const scramJaas = (password: string = SASL_USER.password) =>
  `org.apache.kafka.common.security.scram.ScramLoginModule required username="${SASL_USER.username}" password="${password}";`;

export const plainJaas = (password: string = SASL_USER.password) =>
  `org.apache.kafka.common.security.plain.PlainLoginModule required username="${SASL_USER.username}" password="${password}";`;

/**
 * An unsecured JWS token (alg "none"), which the broker's default OAUTHBEARER validator accepts:
 * the kind of token a test's token module returns.
 */
export function unsecuredJwt(subject: string, lifetimeMs = 3_600_000): string {
  const part = (o: object) => Buffer.from(JSON.stringify(o)).toString("base64url");
  const now = Date.now();
  return `${part({ alg: "none" })}.${part({ sub: subject, iat: Math.floor(now / 1000), exp: Math.floor((now + lifetimeMs) / 1000) })}.`;
}
