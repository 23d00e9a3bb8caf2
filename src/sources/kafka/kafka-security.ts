import { existsSync, readFileSync } from "node:fs";
import * as path from "node:path";
import { createSecureContext, type ConnectionOptions } from "node:tls";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { KafkaSecurityOptions, SaslMechanism, SecurityProtocol } from "../../config/kafka-security-options.js";
import { OptionError } from "../../errors/errors.js";
import { parseJaasConfig } from "./jaas-config.js";

/**
 * A secured connection's settings, resolved once on the driver from the `kafka.security.*`,
 * `kafka.sasl.*` and `kafka.ssl.*` options: files are read (so a wrong path or password fails
 * the query's start, naming the option), and the result is plain data that travels to worker
 * threads with each task. It holds secrets: it is never logged, shown or written to the
 * checkpoint (`describeSecurity` is what may be shown).
 */

export interface KafkaTls {
  /** Trusted certificates, PEM; null trusts Node's bundled CAs, as the JVM trusts its cacerts. */
  readonly ca: string | null;
  /** A PKCS12 truststore, turned into PEM when a connection is first made. */
  readonly trustStore: { readonly der: string; readonly password: string; readonly location: string } | null;
  /** The client's certificate chain and private key, PEM (mutual TLS). */
  readonly cert: string | null;
  readonly key: string | null;
  readonly keyPassword: string | null;
  /** The client's PKCS12 keystore (base64) and its password (mutual TLS). */
  readonly pfx: { readonly der: string; readonly password: string } | null;
  /** Check that the broker's certificate names the host connected to (ssl.endpoint.identification.algorithm=https). */
  readonly verifyHostname: boolean;
}

export type KafkaSasl =
  | { readonly mechanism: "PLAIN" | "SCRAM-SHA-256" | "SCRAM-SHA-512"; readonly username: string; readonly password: string }
  | { readonly mechanism: "OAUTHBEARER"; readonly tokenModule: string };

export interface KafkaSecurity {
  readonly protocol: SecurityProtocol;
  readonly tls: KafkaTls | null;
  readonly sasl: KafkaSasl | null;
}

export const PLAINTEXT_SECURITY: KafkaSecurity = { protocol: "PLAINTEXT", tls: null, sasl: null };

const resolved = new WeakMap<KafkaSecurityOptions, KafkaSecurity>();

export function resolveKafkaSecurity(o: KafkaSecurityOptions): KafkaSecurity {
  let security = resolved.get(o);
  if (!security) {
    const protocol = o["kafka.security.protocol"];
    const tls = protocol === "SSL" || protocol === "SASL_SSL" ? resolveTls(o) : null;
    const sasl = protocol === "SASL_PLAINTEXT" || protocol === "SASL_SSL" ? resolveSasl(o) : null;
    security = { protocol, tls, sasl };
    resolved.set(o, security);
  }
  return security;
}

/** What may be said about a connection's security: the protocol and mechanism, never a secret. */
export function describeSecurity(s: KafkaSecurity): string {
  if (s.sasl?.mechanism === "OAUTHBEARER") return `${s.protocol} (OAUTHBEARER)`;
  if (s.sasl) return `${s.protocol} (${s.sasl.mechanism} as ${s.sasl.username})`;
  return s.protocol;
}

function readFile(option: string, location: string): Buffer {
  try {
    return readFileSync(location);
  } catch (e) {
    throw new OptionError(`${option}: cannot read ${location}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

const isPem = (bytes: Buffer) => /^\s*-----BEGIN /.test(bytes.subarray(0, 64).toString("latin1"));
const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?-----END \1-----/g;

function pemBlocks(text: string, kind: (label: string) => boolean): string[] {
  return [...text.matchAll(PEM_BLOCK)].filter((m) => kind(m[1]!)).map((m) => m[0]);
}
const isCertificate = (label: string) => label === "CERTIFICATE";
const isPrivateKey = (label: string) => /(^|\s)PRIVATE KEY$/.test(label);

/** Turns Node's TLS error into the option that caused it; `what` names where the material came from. */
/** Builds a TLS context from `options` to find a bad file or password now; `passwordOption` opens it (null: none does). */
function checkContext(options: Parameters<typeof createSecureContext>[0], what: string, passwordOption: string | null): void {
  try {
    createSecureContext(options);
  } catch (e) {
    const message = (e as Error).message;
    if (passwordOption !== null && /mac verify|bad decrypt|bad password|wrong password/i.test(message)) {
      throw new OptionError(`${passwordOption} does not open ${what} (${message})`);
    }
    throw new OptionError(`${what} cannot be used: ${message}`);
  }
}

function resolveTls(o: KafkaSecurityOptions): KafkaTls {
  let ca: string | null = null;
  let trustStore: KafkaTls["trustStore"] = null;
  const trustLocation = o["kafka.ssl.truststore.location"];
  if (trustLocation !== undefined) {
    const bytes = readFile("kafka.ssl.truststore.location", trustLocation);
    const type = o["kafka.ssl.truststore.type"] ?? (isPem(bytes) ? "PEM" : "PKCS12");
    if (type === "PEM") {
      ca = trustedPem(bytes.toString("utf8"), `kafka.ssl.truststore.location (${trustLocation})`);
    } else {
      const password = o["kafka.ssl.truststore.password"];
      if (password === undefined) throw new OptionError(`kafka.ssl.truststore.password: the PKCS12 truststore ${trustLocation} needs its password`);
      trustStore = { der: bytes.toString("base64"), password, location: trustLocation };
    }
  } else if (o["kafka.ssl.truststore.certificates"] !== undefined) {
    ca = trustedPem(o["kafka.ssl.truststore.certificates"], "kafka.ssl.truststore.certificates");
  }

  let cert: string | null = null;
  let key: string | null = null;
  let pfx: KafkaTls["pfx"] = null;
  const keyPassword = o["kafka.ssl.key.password"] ?? null;
  const keyLocation = o["kafka.ssl.keystore.location"];
  if (keyLocation !== undefined) {
    const bytes = readFile("kafka.ssl.keystore.location", keyLocation);
    const type = o["kafka.ssl.keystore.type"] ?? (isPem(bytes) ? "PEM" : "PKCS12");
    const what = `the keystore kafka.ssl.keystore.location (${keyLocation})`;
    if (type === "PEM") {
      ({ cert, key } = keyPair(bytes.toString("utf8"), bytes.toString("utf8"), what));
      checkContext({ cert, key, passphrase: keyPassword ?? undefined }, what, "kafka.ssl.key.password");
    } else {
      const password = o["kafka.ssl.keystore.password"];
      if (password === undefined) throw new OptionError(`kafka.ssl.keystore.password: the PKCS12 keystore ${keyLocation} needs its password`);
      pfx = { der: bytes.toString("base64"), password };
      checkContext({ pfx: bytes, passphrase: password }, what, "kafka.ssl.keystore.password");
    }
  } else if (o["kafka.ssl.keystore.key"] !== undefined) {
    const what = "kafka.ssl.keystore.key with kafka.ssl.keystore.certificate.chain";
    ({ cert, key } = keyPair(o["kafka.ssl.keystore.key"], o["kafka.ssl.keystore.certificate.chain"]!, what));
    checkContext({ cert, key, passphrase: keyPassword ?? undefined }, what, "kafka.ssl.key.password");
  }
  return { ca, trustStore, cert, key, keyPassword, pfx, verifyHostname: o["kafka.ssl.endpoint.identification.algorithm"] === "https" };
}

function trustedPem(text: string, what: string): string {
  const certificates = pemBlocks(text, isCertificate);
  if (certificates.length === 0) throw new OptionError(`${what} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
  const ca = certificates.join("\n");
  // PEM certificates are public: no password is involved.
  checkContext({ ca }, what, null);
  return ca;
}

function keyPair(keyText: string, chainText: string, what: string): { cert: string; key: string } {
  const keys = pemBlocks(keyText, isPrivateKey);
  const certificates = pemBlocks(chainText, isCertificate);
  if (keys.length !== 1) throw new OptionError(`${what} must hold one PEM private key, found ${keys.length}`);
  if (certificates.length === 0) throw new OptionError(`${what} holds no PEM certificate for the key`);
  return { key: keys[0]!, cert: certificates.join("\n") };
}

const LOGIN_MODULES: Record<Exclude<SaslMechanism, "OAUTHBEARER">, string> = {
  PLAIN: "org.apache.kafka.common.security.plain.PlainLoginModule",
  "SCRAM-SHA-256": "org.apache.kafka.common.security.scram.ScramLoginModule",
  "SCRAM-SHA-512": "org.apache.kafka.common.security.scram.ScramLoginModule",
};

function resolveSasl(o: KafkaSecurityOptions): KafkaSasl {
  const mechanism = o["kafka.sasl.mechanism"]!;
  if (mechanism === "OAUTHBEARER") {
    const spec = o["kafka.sasl.login.callback.handler.module"]!;
    const file = spec.startsWith("file:") ? fileURLToPath(spec) : path.resolve(spec);
    if (!existsSync(file)) throw new OptionError(`kafka.sasl.login.callback.handler.module: no module at ${file}`);
    return { mechanism, tokenModule: pathToFileURL(file).href };
  }
  const entry = parseJaasConfig(o["kafka.sasl.jaas.config"]!);
  const expected = LOGIN_MODULES[mechanism];
  if (entry.loginModule !== expected) {
    throw new OptionError(`kafka.sasl.jaas.config names ${entry.loginModule}, but kafka.sasl.mechanism ${mechanism} needs ${expected}`);
  }
  const { username, password } = entry.options;
  if (!username || password === undefined) {
    throw new OptionError(`kafka.sasl.jaas.config: ${mechanism} needs username="..." and password="..." in the JAAS line`);
  }
  return { mechanism, username, password };
}

/** What kafkajs takes for TLS and SASL, built from resolved settings (each thread builds its own). */
export interface ClientSecurity {
  readonly ssl?: ConnectionOptions;
  readonly sasl?:
    | { mechanism: "plain" | "scram-sha-256" | "scram-sha-512"; username: string; password: string }
    | { mechanism: "oauthbearer"; oauthBearerProvider: () => Promise<{ value: string }> };
}

const built = new Map<string, Promise<ClientSecurity>>();

export function clientSecurity(s: KafkaSecurity): Promise<ClientSecurity> {
  if (s.protocol === "PLAINTEXT") return Promise.resolve({});
  const key = JSON.stringify(s);
  let client = built.get(key);
  if (!client) {
    client = buildClientSecurity(s);
    built.set(key, client);
    client.catch(() => built.delete(key));
  }
  return client;
}

async function buildClientSecurity(s: KafkaSecurity): Promise<ClientSecurity> {
  return {
    ...(s.tls ? { ssl: await tlsOptions(s.tls) } : {}),
    ...(s.sasl ? { sasl: saslOptions(s.sasl) } : {}),
  };
}

async function tlsOptions(t: KafkaTls): Promise<ConnectionOptions> {
  const ca = t.trustStore ? await pkcs12Certificates(t.trustStore) : t.ca;
  return {
    ...(ca !== null ? { ca } : {}),
    ...(t.cert !== null ? { cert: t.cert, key: t.key!, ...(t.keyPassword !== null ? { passphrase: t.keyPassword } : {}) } : {}),
    ...(t.pfx !== null ? { pfx: Buffer.from(t.pfx.der, "base64"), passphrase: t.pfx.password } : {}),
    rejectUnauthorized: true,
    minVersion: "TLSv1.2",
    ...(t.verifyHostname ? {} : { checkServerIdentity: () => undefined }),
  };
}

/**
 * The certificates of a PKCS12 truststore as PEM. Node reads PKCS12 only as a client identity (it
 * wants a private key in it), while a Java truststore holds certificates alone; node-forge reads
 * both, and is loaded only when such a store is configured.
 */
async function pkcs12Certificates(store: NonNullable<KafkaTls["trustStore"]>): Promise<string> {
  const forge = (await import("node-forge")).default;
  let p12;
  try {
    p12 = forge.pkcs12.pkcs12FromAsn1(forge.asn1.fromDer(forge.util.createBuffer(Buffer.from(store.der, "base64").toString("binary"))), store.password);
  } catch (e) {
    const message = (e as Error).message;
    const what = `the PKCS12 truststore kafka.ssl.truststore.location (${store.location})`;
    throw new OptionError(/password|mac/i.test(message) ? `kafka.ssl.truststore.password does not open ${what}` : `${what} cannot be read: ${message}`);
  }
  const bags = p12.getBags({ bagType: forge.pki.oids.certBag! })[forge.pki.oids.certBag!] ?? [];
  const pems = bags.flatMap((b) => (b.cert ? [forge.pki.certificateToPem(b.cert)] : []));
  if (pems.length === 0) throw new OptionError(`the PKCS12 truststore kafka.ssl.truststore.location (${store.location}) holds no certificate`);
  return pems.join("\n");
}

function saslOptions(s: KafkaSasl): NonNullable<ClientSecurity["sasl"]> {
  if (s.mechanism !== "OAUTHBEARER") {
    return { mechanism: s.mechanism.toLowerCase() as "plain" | "scram-sha-256" | "scram-sha-512", username: s.username, password: s.password };
  }
  const { tokenModule } = s;
  return { mechanism: "oauthbearer", oauthBearerProvider: () => oauthBearerToken(tokenModule) };
}

/** Asks the user's token module for a token, each time kafkajs authenticates a connection. */
async function oauthBearerToken(moduleUrl: string): Promise<{ value: string }> {
  const where = `kafka.sasl.login.callback.handler.module (${fileURLToPath(moduleUrl)})`;
  const mod = (await import(moduleUrl)) as { default?: unknown };
  if (typeof mod.default !== "function") throw new OptionError(`${where} must export a function as its default export, returning the token`);
  const token = (await (mod.default as () => unknown)()) as unknown;
  const value = typeof token === "string" ? token : (token as { value?: unknown } | null)?.value;
  if (typeof value !== "string" || value === "") {
    throw new OptionError(`${where}: its default export must return the token, as text or { value: string }`);
  }
  return { value };
}
