import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { OptionError } from "../errors/errors.js";
import { parseJaasConfig } from "../sources/kafka/jaas-config.js";
import { describeSecurity, resolveKafkaSecurity } from "../sources/kafka/kafka-security.js";
import { withSession } from "../testing/fixtures.js";
import { checkKafkaSecurityOptions, kafkaSecurityOptions, securityOptionsOf } from "./kafka-security-options.js";
import { kafkaSourceSchema } from "./kafka-options.js";
import { validateOptions } from "./validate.js";

const BOOTSTRAP = "127.0.0.1:1";
const SCRAM = 'org.apache.kafka.common.security.scram.ScramLoginModule required username="alice" password="pa\\"ss word";';

/** A Kafka source's options, validated and checked as `load()` does. */
function source(options: Record<string, unknown>) {
  const o = validateOptions(kafkaSourceSchema, { "kafka.bootstrap.servers": BOOTSTRAP, subscribe: "t", ...options }, "kafka source");
  checkKafkaSecurityOptions(o, "kafka source");
  return o;
}

describe("Kafka security options", () => {
  it("default to PLAINTEXT and read protocol and mechanism names in any case, as the Java client does", () => {
    expect(securityOptionsOf(source({}))).toEqual({ "kafka.security.protocol": "PLAINTEXT", "kafka.ssl.endpoint.identification.algorithm": "https" });
    const o = source({ "kafka.security.protocol": "sasl_ssl", "kafka.sasl.mechanism": "scram-sha-512", "kafka.sasl.jaas.config": SCRAM });
    expect([o["kafka.security.protocol"], o["kafka.sasl.mechanism"]]).toEqual(["SASL_SSL", "SCRAM-SHA-512"]);
    expect(resolveKafkaSecurity(o)).toEqual({ protocol: "SASL_SSL", tls: expect.objectContaining({ ca: null, verifyHostname: true }), sasl: { mechanism: "SCRAM-SHA-512", username: "alice", password: 'pa"ss word' } });
    expect(describeSecurity(resolveKafkaSecurity(o))).toBe("SASL_SSL (SCRAM-SHA-512 as alice)");
  });

  it.each([
    [{ "kafka.security.protocol": "TLS" }, 'kafka source: option "kafka.security.protocol": kafka.security.protocol must be PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL (got "TLS")'],
    [
      { "kafka.security.protocol": "SASL_SSL", "kafka.sasl.mechanism": "GSSAPI" },
      'kafka source: option "kafka.sasl.mechanism": kafka.sasl.mechanism GSSAPI (Kerberos) is not supported by Sluice: use PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 or OAUTHBEARER (got "GSSAPI")',
    ],
    [
      { "kafka.security.protocol": "SSL", "kafka.ssl.truststore.type": "JKS" },
      'kafka source: option "kafka.ssl.truststore.type": kafka.ssl.truststore.type: JKS stores cannot be read outside the JVM; convert the store once with keytool -importkeystore -srcstoretype JKS -deststoretype PKCS12, then set kafka.ssl.truststore.type to PKCS12 (got "JKS")',
    ],
    [
      { "kafka.ssl.truststore.location": "/ca.pem" },
      "kafka source: kafka.ssl.truststore.location is set but kafka.security.protocol is PLAINTEXT: set it to SSL or SASL_SSL to connect with TLS",
    ],
    [
      { "kafka.security.protocol": "SSL", "kafka.sasl.mechanism": "PLAIN" },
      "kafka source: kafka.sasl.mechanism is set but kafka.security.protocol is SSL: set it to SASL_SSL or SASL_PLAINTEXT to authenticate with SASL",
    ],
    [
      { "kafka.security.protocol": "SASL_SSL" },
      "kafka source: kafka.security.protocol SASL_SSL needs kafka.sasl.mechanism: PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 or OAUTHBEARER (the Java client's default, GSSAPI, is not supported)",
    ],
    [
      { "kafka.security.protocol": "SASL_PLAINTEXT", "kafka.sasl.mechanism": "PLAIN" },
      'kafka source: kafka.sasl.mechanism PLAIN needs kafka.sasl.jaas.config, e.g. org.apache.kafka.common.security.plain.PlainLoginModule required username="..." password="...";',
    ],
    [
      { "kafka.security.protocol": "SASL_SSL", "kafka.sasl.mechanism": "OAUTHBEARER" },
      "kafka source: kafka.sasl.mechanism OAUTHBEARER needs kafka.sasl.login.callback.handler.module: a module whose default export returns the token",
    ],
    [
      { "kafka.sasl.login.callback.handler.class": "com.example.Tokens" },
      'kafka source: option "kafka.sasl.login.callback.handler.class": kafka.sasl.login.callback.handler.class names a Java class; Sluice loads an ES module instead: set kafka.sasl.login.callback.handler.module to a file whose default export returns the token (got "com.example.Tokens")',
    ],
    [
      { "kafka.security.protocol": "SSL", "kafka.ssl.keystore.key": "-----BEGIN PRIVATE KEY-----" },
      "kafka source: kafka.ssl.keystore.key and kafka.ssl.keystore.certificate.chain go together: set both, or neither",
    ],
    [
      { "kafka.security.protocol": "SSL", "kafka.ssl.truststore.location": "/a.pem", "kafka.ssl.truststore.certificates": "-----BEGIN CERTIFICATE-----" },
      "kafka source: set kafka.ssl.truststore.location or kafka.ssl.truststore.certificates, not both",
    ],
    [
      { "kafka.security.protocol": "SSL", "kafka.ssl.endpoint.identification.algorithm": "none" },
      'kafka source: option "kafka.ssl.endpoint.identification.algorithm": kafka.ssl.endpoint.identification.algorithm must be "https" or "" (no hostname verification) (got "none")',
    ],
  ])("are refused when they cannot work: %j", (options, message) => {
    expect(() => source(options)).toThrow(OptionError);
    expect(() => source(options)).toThrow(message);
  });

  it("never repeat a secret's value in an error", () => {
    expect(() => source({ "kafka.security.protocol": "SASL_SSL", "kafka.sasl.mechanism": "PLAIN", "kafka.sasl.jaas.config": 42 })).toThrow(
      /^kafka source: option "kafka.sasl.jaas.config": kafka.sasl.jaas.config must be text$/,
    );
    expect(() => source({ "kafka.security.protocol": "SSL", "kafka.ssl.keystore.password": 1234 })).toThrow(
      /^kafka source: option "kafka.ssl.keystore.password": kafka.ssl.keystore.password must be text$/,
    );
    const wrongModule = { "kafka.security.protocol": "SASL_SSL", "kafka.sasl.mechanism": "SCRAM-SHA-256", "kafka.sasl.jaas.config": SCRAM.replace("scram.Scram", "plain.Plain") };
    expect(() => resolveKafkaSecurity(source(wrongModule))).toThrow(
      "kafka.sasl.jaas.config names org.apache.kafka.common.security.plain.PlainLoginModule, but kafka.sasl.mechanism SCRAM-SHA-256 needs org.apache.kafka.common.security.scram.ScramLoginModule",
    );
  });

  it("name the option and the path of a store that cannot be read or holds no certificate", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "sluice-tls-"));
    const notPem = path.join(dir, "notes.pem");
    writeFileSync(notPem, "-----BEGIN NOTES-----\nhello\n-----END NOTES-----\n");
    expect(() => resolveKafkaSecurity(source({ "kafka.security.protocol": "SSL", "kafka.ssl.truststore.location": path.join(dir, "missing.pem") }))).toThrow(
      `kafka.ssl.truststore.location: cannot read ${path.join(dir, "missing.pem")}: ENOENT`,
    );
    expect(() => resolveKafkaSecurity(source({ "kafka.security.protocol": "SSL", "kafka.ssl.truststore.location": notPem }))).toThrow(
      `kafka.ssl.truststore.location (${notPem}) holds no PEM certificate (-----BEGIN CERTIFICATE-----)`,
    );
    expect(() => resolveKafkaSecurity(source({ "kafka.security.protocol": "SSL", "kafka.ssl.keystore.location": notPem }))).toThrow(
      `the keystore kafka.ssl.keystore.location (${notPem}) must hold one PEM private key, found 0`,
    );
    expect(() =>
      resolveKafkaSecurity(source({ "kafka.security.protocol": "SASL_SSL", "kafka.sasl.mechanism": "OAUTHBEARER", "kafka.sasl.login.callback.handler.module": path.join(dir, "token.mjs") })),
    ).toThrow(`kafka.sasl.login.callback.handler.module: no module at ${path.join(dir, "token.mjs")}`);
  });

  it("are the same for the Kafka sink, checked at start()", () =>
    withSession(0, async (session) => {
      const stream = session.memoryStream(z.object({ value: z.string() }));
      const start = (options: Record<string, string>) =>
        stream.toDF().writeStream.format("kafka").option("kafka.bootstrap.servers", BOOTSTRAP).option("topic", "t").options(options).start();
      expect(() => start({ "kafka.security.protocol": "SASL_SSL" })).toThrow("kafka sink: kafka.security.protocol SASL_SSL needs kafka.sasl.mechanism");
      expect(() => start({ "kafka.ssl.truststore.location": "/ca.pem" })).toThrow("kafka sink: kafka.ssl.truststore.location is set but kafka.security.protocol is PLAINTEXT");
    }));

  it("cover every key of the schema fragment the source and the sink share", () => {
    expect(Object.keys(kafkaSecurityOptions).every((k) => k.startsWith("kafka."))).toBe(true);
  });
});

describe("JAAS lines (kafka.sasl.jaas.config)", () => {
  it("read as the Java client reads them: quoted values with escapes, bare words, any spacing", () => {
    expect(parseJaasConfig(SCRAM)).toEqual({
      loginModule: "org.apache.kafka.common.security.scram.ScramLoginModule",
      flag: "required",
      options: { username: "alice", password: 'pa"ss word' },
    });
    expect(parseJaasConfig("  a.B   optional\n  x = y  z=\"1 2\" ;  ")).toEqual({ loginModule: "a.B", flag: "optional", options: { x: "y", z: "1 2" } });
  });

  it.each([
    ["a.B required x=1", "kafka.sasl.jaas.config: the entry does not end with ';' at character 17"],
    ["a.B always x=1;", "kafka.sasl.jaas.config: the control flag must be required, requisite, sufficient or optional at character 11"],
    ['a.B required password="secret;', "kafka.sasl.jaas.config: a quoted value is not closed at character 31"],
    ["a.B required x=1; b.C required;", "kafka.sasl.jaas.config: only one login module entry is supported; text follows the ';' at character 19"],
  ])("refuse %j, pointing at the place and never quoting it", (text, message) => {
    expect(() => parseJaasConfig(text)).toThrow(message);
    expect(() => parseJaasConfig(text)).not.toThrow(/secret/);
  });
});
