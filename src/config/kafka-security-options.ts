import { z } from "zod";
import { OptionError } from "../errors/errors.js";

/**
 * How Sluice reaches a secured Kafka: the Java client's `security.protocol`, `sasl.*` and `ssl.*`
 * settings under Spark's `kafka.` prefix, accepted by the Kafka source, the Kafka sink, the
 * dead-letter topic and the admin calls alike. The values are checked here, one by one and across
 * each other; sources/kafka/kafka-security.ts turns them into connections.
 */

export const SECURITY_PROTOCOLS = ["PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"] as const;
export const SASL_MECHANISMS = ["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "OAUTHBEARER"] as const;
export type SecurityProtocol = (typeof SECURITY_PROTOCOLS)[number];
export type SaslMechanism = (typeof SASL_MECHANISMS)[number];

const upperEnum = <T extends readonly [string, ...string[]]>(values: T, message: string) =>
  z
    .string({ error: message })
    .transform((s) => s.trim().toUpperCase())
    .pipe(z.enum(values, { error: message }));

const storeType = (option: string) =>
  upperEnum(["PEM", "PKCS12", "JKS"] as const, `${option} must be PEM or PKCS12`).refine((t) => t !== "JKS", {
    message: `${option}: JKS stores cannot be read outside the JVM; convert the store once with keytool -importkeystore -srcstoretype JKS -deststoretype PKCS12, then set ${option} to PKCS12`,
  });

const text = (option: string) => z.string({ error: `${option} must be text` }).min(1, `${option} must not be empty`);

export const kafkaSecurityOptions = {
  "kafka.security.protocol": upperEnum(SECURITY_PROTOCOLS, "kafka.security.protocol must be PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL").default("PLAINTEXT"),
  "kafka.sasl.mechanism": z
    .string({ error: "kafka.sasl.mechanism must be text" })
    .transform((s) => s.trim().toUpperCase())
    .pipe(
      z.enum(SASL_MECHANISMS, {
        error: (issue) =>
          issue.input === "GSSAPI"
            ? "kafka.sasl.mechanism GSSAPI (Kerberos) is not supported by Sluice: use PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 or OAUTHBEARER"
            : "kafka.sasl.mechanism must be PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 or OAUTHBEARER",
      }),
    )
    .optional(),
  /** The Java client's JAAS line; Sluice reads `username` and `password` from it (PLAIN, SCRAM). */
  "kafka.sasl.jaas.config": text("kafka.sasl.jaas.config").optional(),
  /**
   * OAUTHBEARER: path (or file: URL) of an ES module whose default export returns the token, as
   * `{ value: string }` or the token itself; each worker thread imports it. Sluice's counterpart of
   * the Java client's sasl.login.callback.handler.class.
   */
  "kafka.sasl.login.callback.handler.module": text("kafka.sasl.login.callback.handler.module").optional(),
  "kafka.sasl.login.callback.handler.class": z
    .never({
      error:
        "kafka.sasl.login.callback.handler.class names a Java class; Sluice loads an ES module instead: set kafka.sasl.login.callback.handler.module to a file whose default export returns the token",
    })
    .optional(),
  "kafka.ssl.truststore.type": storeType("kafka.ssl.truststore.type").optional(),
  "kafka.ssl.truststore.location": text("kafka.ssl.truststore.location").optional(),
  "kafka.ssl.truststore.password": z.string({ error: "kafka.ssl.truststore.password must be text" }).optional(),
  /** The trusted certificates themselves, PEM (the Java client's ssl.truststore.certificates). */
  "kafka.ssl.truststore.certificates": text("kafka.ssl.truststore.certificates").optional(),
  "kafka.ssl.keystore.type": storeType("kafka.ssl.keystore.type").optional(),
  "kafka.ssl.keystore.location": text("kafka.ssl.keystore.location").optional(),
  "kafka.ssl.keystore.password": z.string({ error: "kafka.ssl.keystore.password must be text" }).optional(),
  /** Password of the private key: an encrypted PEM key, or a PKCS12 key protected apart from its store. */
  "kafka.ssl.key.password": z.string({ error: "kafka.ssl.key.password must be text" }).optional(),
  /** The client's private key itself, PEM (the Java client's ssl.keystore.key). */
  "kafka.ssl.keystore.key": text("kafka.ssl.keystore.key").optional(),
  /** The client's certificate chain itself, PEM (the Java client's ssl.keystore.certificate.chain). */
  "kafka.ssl.keystore.certificate.chain": text("kafka.ssl.keystore.certificate.chain").optional(),
  /** "https" (the default) checks that the broker's certificate names the host connected to; "" turns that off. */
  "kafka.ssl.endpoint.identification.algorithm": z
    .string()
    .transform((s) => s.trim().toLowerCase())
    .pipe(z.enum(["https", ""], { error: 'kafka.ssl.endpoint.identification.algorithm must be "https" or "" (no hostname verification)' }))
    .default("https"),
} as const;

const securityShape = z.object(kafkaSecurityOptions);
export type KafkaSecurityOptions = z.output<typeof securityShape>;

/** The security options among a source's or sink's validated options. */
export function securityOptionsOf(o: KafkaSecurityOptions): KafkaSecurityOptions {
  const picked: Record<string, unknown> = {};
  for (const key of Object.keys(kafkaSecurityOptions)) if ((o as Record<string, unknown>)[key] !== undefined) picked[key] = (o as Record<string, unknown>)[key];
  return picked as KafkaSecurityOptions;
}

/**
 * Options whose values are secrets: never shown in errors, progress, logs, `explain()` or the
 * checkpoint. (The JAAS line holds the password; key material is as secret as a password; the
 * schema registry's credentials, which a source reading Avro or Protobuf takes beside Kafka's.)
 */
export const SECRET_OPTIONS: ReadonlySet<string> = new Set([
  "kafka.sasl.jaas.config",
  "kafka.ssl.truststore.password",
  "kafka.ssl.keystore.password",
  "kafka.ssl.key.password",
  "kafka.ssl.keystore.key",
  "basic.auth.user.info",
  "bearer.auth.token",
]);

const TLS_ONLY = [
  "kafka.ssl.truststore.type",
  "kafka.ssl.truststore.location",
  "kafka.ssl.truststore.password",
  "kafka.ssl.truststore.certificates",
  "kafka.ssl.keystore.type",
  "kafka.ssl.keystore.location",
  "kafka.ssl.keystore.password",
  "kafka.ssl.key.password",
  "kafka.ssl.keystore.key",
  "kafka.ssl.keystore.certificate.chain",
] as const;
const SASL_ONLY = ["kafka.sasl.mechanism", "kafka.sasl.jaas.config", "kafka.sasl.login.callback.handler.module"] as const;

/**
 * The rules across security options. Where the Java client would silently ignore a setting (a
 * truststore with PLAINTEXT), Sluice refuses it: a user who set one meant to use it.
 */
export function checkKafkaSecurityOptions(o: KafkaSecurityOptions, where: string): void {
  const fail = (message: string): never => {
    throw new OptionError(`${where}: ${message}`);
  };
  const protocol = o["kafka.security.protocol"];
  const tls = protocol === "SSL" || protocol === "SASL_SSL";
  const sasl = protocol === "SASL_PLAINTEXT" || protocol === "SASL_SSL";
  if (!tls) {
    const set = TLS_ONLY.filter((k) => o[k] !== undefined);
    if (set.length) fail(`${set.join(", ")} ${set.length > 1 ? "are" : "is"} set but kafka.security.protocol is ${protocol}: set it to SSL or SASL_SSL to connect with TLS`);
  }
  if (!sasl) {
    const set = SASL_ONLY.filter((k) => o[k] !== undefined);
    if (set.length) fail(`${set.join(", ")} ${set.length > 1 ? "are" : "is"} set but kafka.security.protocol is ${protocol}: set it to SASL_SSL or SASL_PLAINTEXT to authenticate with SASL`);
  }
  if (sasl) {
    const mechanism = o["kafka.sasl.mechanism"];
    if (mechanism === undefined) {
      fail(`kafka.security.protocol ${protocol} needs kafka.sasl.mechanism: PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 or OAUTHBEARER (the Java client's default, GSSAPI, is not supported)`);
    }
    if (mechanism === "OAUTHBEARER") {
      if (o["kafka.sasl.login.callback.handler.module"] === undefined) {
        fail("kafka.sasl.mechanism OAUTHBEARER needs kafka.sasl.login.callback.handler.module: a module whose default export returns the token");
      }
    } else {
      if (o["kafka.sasl.jaas.config"] === undefined) {
        fail(
          `kafka.sasl.mechanism ${mechanism} needs kafka.sasl.jaas.config, e.g. ` +
            `${mechanism === "PLAIN" ? "org.apache.kafka.common.security.plain.PlainLoginModule" : "org.apache.kafka.common.security.scram.ScramLoginModule"} required username="..." password="...";`,
        );
      }
      if (o["kafka.sasl.login.callback.handler.module"] !== undefined) {
        fail(`kafka.sasl.login.callback.handler.module applies to OAUTHBEARER only, but kafka.sasl.mechanism is ${mechanism}`);
      }
    }
  }
  if (o["kafka.ssl.truststore.location"] !== undefined && o["kafka.ssl.truststore.certificates"] !== undefined) {
    fail("set kafka.ssl.truststore.location or kafka.ssl.truststore.certificates, not both");
  }
  const inlineKey = o["kafka.ssl.keystore.key"] !== undefined;
  const inlineChain = o["kafka.ssl.keystore.certificate.chain"] !== undefined;
  if (inlineKey !== inlineChain) fail("kafka.ssl.keystore.key and kafka.ssl.keystore.certificate.chain go together: set both, or neither");
  if (inlineKey && o["kafka.ssl.keystore.location"] !== undefined) fail("set kafka.ssl.keystore.location or kafka.ssl.keystore.key with its certificate chain, not both");
  if (o["kafka.ssl.keystore.password"] !== undefined && o["kafka.ssl.keystore.location"] === undefined) {
    fail("kafka.ssl.keystore.password is set without kafka.ssl.keystore.location");
  }
  if (o["kafka.ssl.truststore.password"] !== undefined && o["kafka.ssl.truststore.location"] === undefined) {
    fail("kafka.ssl.truststore.password is set without kafka.ssl.truststore.location");
  }
}
