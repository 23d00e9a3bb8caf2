import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { Partitioners } from "kafkajs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { col } from "../../api/functions.js";
import type { Session } from "../../api/session.js";
import { withSession } from "../../testing/fixtures.js";
import { createTopic, deleteTopic, kafkaClient, withAdmin } from "../../testing/kafka.js";
import { listener, plainJaas, SASL_USER, scramJaas, tlsFile, TLS_STORE_PASSWORD, unsecuredJwt, type SecureListener } from "../../testing/kafka-secure.js";
import { filesUnder } from "../../testing/temp-dir.js";

type Options = Record<string, string | number | boolean>;

const VALUES = ['{"n":1}', '{"n":2}', '{"n":3}'];
const topics: string[] = [];
let topic: string;

beforeAll(async () => {
  topic = await createTopic("sluice-secure", 2);
  topics.push(topic);
  const producer = kafkaClient().producer({ createPartitioner: Partitioners.DefaultPartitioner });
  await producer.connect();
  await producer.send({ topic, messages: VALUES.map((value, i) => ({ partition: i % 2, value })) });
  await producer.disconnect();
});
afterAll(async () => {
  if (topics.length) await deleteTopic(...topics);
});

const pem = (name: string) => readFileSync(tlsFile(name), "utf8");
const trustCa: Options = { "kafka.ssl.truststore.location": tlsFile("ca.pem") };
const scram = (mechanism: "SCRAM-SHA-256" | "SCRAM-SHA-512", password?: string): Options => ({
  "kafka.sasl.mechanism": mechanism,
  "kafka.sasl.jaas.config": scramJaas(password),
});

/** A token module as a user writes one: its default export returns the token. */
function tokenModule(subject: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), "sluice-token-"));
  const file = path.join(dir, "token.mjs");
  writeFileSync(file, `export default async () => ({ value: ${JSON.stringify(unsecuredJwt(subject))} });\n`);
  return file;
}

/** The topic's values, read with `read.format("kafka")` through the listener `at`. */
async function readValues(session: Session, at: SecureListener, options: Options, from = topic): Promise<string[]> {
  const rows = await session.read
    .format("kafka")
    .option("kafka.bootstrap.servers", listener(at))
    .option("subscribe", from)
    .options({ "fetchOffset.numRetries": 0, ...options })
    .load()
    .select(col("value").cast("string").alias("value"))
    .orderBy("value")
    .collect();
  return rows.map((r) => r.value!);
}

/** The error a read through `at` with `options` fails with, and how long it took. */
async function readFailure(session: Session, at: SecureListener, options: Options): Promise<{ message: string; name: string; ms: number }> {
  const started = Date.now();
  const error = await readValues(session, at, options).then(
    () => null,
    (e: unknown) => e as Error,
  );
  expect(error, "the read should have failed").not.toBeNull();
  return { message: error!.message, name: error!.name, ms: Date.now() - started };
}

describe("Kafka over TLS and SASL against the real broker", () => {
  const modes: [string, SecureListener, () => Options][] = [
    ["SSL, the CA in a PEM truststore", "SSL", () => ({ "kafka.security.protocol": "SSL", ...trustCa })],
    [
      "SSL, a PKCS12 truststore written by keytool",
      "SSL",
      () => ({
        "kafka.security.protocol": "SSL",
        "kafka.ssl.truststore.type": "PKCS12",
        "kafka.ssl.truststore.location": tlsFile("truststore.p12"),
        "kafka.ssl.truststore.password": TLS_STORE_PASSWORD,
      }),
    ],
    ["SSL, the CA inline (ssl.truststore.certificates)", "SSL", () => ({ "kafka.security.protocol": "SSL", "kafka.ssl.truststore.certificates": pem("ca.pem") })],
    [
      "mutual TLS, key and chain in one PEM keystore",
      "MTLS",
      () => ({ "kafka.security.protocol": "SSL", ...trustCa, "kafka.ssl.keystore.location": tlsFile("client.keystore.pem") }),
    ],
    [
      "mutual TLS, an encrypted PEM key inline with its password",
      "MTLS",
      () => ({
        "kafka.security.protocol": "SSL",
        ...trustCa,
        "kafka.ssl.keystore.key": pem("client.encrypted.key"),
        "kafka.ssl.keystore.certificate.chain": pem("client.pem"),
        "kafka.ssl.key.password": TLS_STORE_PASSWORD,
      }),
    ],
    [
      "mutual TLS, a PKCS12 keystore",
      "MTLS",
      () => ({
        "kafka.security.protocol": "SSL",
        ...trustCa,
        "kafka.ssl.keystore.type": "PKCS12",
        "kafka.ssl.keystore.location": tlsFile("client.p12"),
        "kafka.ssl.keystore.password": TLS_STORE_PASSWORD,
      }),
    ],
    ["SASL_SSL with SCRAM-SHA-256", "SASL_SSL", () => ({ "kafka.security.protocol": "SASL_SSL", ...trustCa, ...scram("SCRAM-SHA-256") })],
    ["SASL_SSL with SCRAM-SHA-512", "SASL_SSL", () => ({ "kafka.security.protocol": "SASL_SSL", ...trustCa, ...scram("SCRAM-SHA-512") })],
    [
      "SASL_SSL with PLAIN",
      "SASL_SSL",
      () => ({ "kafka.security.protocol": "SASL_SSL", ...trustCa, "kafka.sasl.mechanism": "PLAIN", "kafka.sasl.jaas.config": plainJaas() }),
    ],
    [
      "SASL_SSL with OAUTHBEARER and a token module",
      "SASL_SSL",
      () => ({
        "kafka.security.protocol": "SASL_SSL",
        ...trustCa,
        "kafka.sasl.mechanism": "OAUTHBEARER",
        "kafka.sasl.login.callback.handler.module": tokenModule("sluice-app"),
      }),
    ],
    ["SASL_PLAINTEXT with SCRAM-SHA-512", "SASL_PLAINTEXT", () => ({ "kafka.security.protocol": "SASL_PLAINTEXT", ...scram("SCRAM-SHA-512") })],
  ];

  it.each(modes)("reads a topic over %s", (_, at, options) =>
    withSession(1, async (session) => {
      expect(await readValues(session, at, options())).toEqual(VALUES);
    }),
  );

  it("runs a query from a SASL_SSL source to an exactly-once SASL_SSL sink, with a dead-letter topic and a consumer group, and no secret in its progress, plan or checkpoint", () =>
    withSession(2, async (session) => {
      const secure: Options = { "kafka.security.protocol": "SASL_SSL", ...trustCa, ...scram("SCRAM-SHA-256") };
      const input = await createTopic("sluice-secure-in", 2);
      const output = await createTopic("sluice-secure-out", 1);
      const dead = await createTopic("sluice-secure-dead", 1);
      topics.push(input, output, dead);
      const producer = kafkaClient().producer({ createPartitioner: Partitioners.DefaultPartitioner });
      await producer.connect();
      await producer.send({ topic: input, messages: ['{"n":1}', "not json", '{"n":2}'].map((value, i) => ({ partition: i % 2, value })) });
      await producer.disconnect();
      const checkpoint = mkdtempSync(path.join(tmpdir(), "sluice-secure-"));
      const group = `sluice-secure-group-${process.pid}`;

      const q = session.readStream
        .format("kafka")
        .schema(z.object({ n: z.int() }))
        .option("kafka.bootstrap.servers", listener("SASL_SSL"))
        .option("subscribe", input)
        .option("startingOffsets", "earliest")
        .option("mode", "DROPMALFORMED")
        .option("deadLetterTopic", dead)
        .option("commitOffsetsToGroup", group)
        .options(secure)
        .load()
        .select(col("n").cast("string").alias("value"))
        .writeStream.format("kafka")
        .option("kafka.bootstrap.servers", listener("SASL_SSL"))
        .option("topic", output)
        .option("exactlyOnce", true)
        .option("checkpointLocation", checkpoint)
        .options(secure)
        .trigger({ availableNow: true })
        .start();
      await q.awaitTermination();

      expect(await readValues(session, "SASL_SSL", { ...secure, "kafka.isolation.level": "read_committed" }, output)).toEqual(["1", "2"]);
      expect(await readValues(session, "SASL_SSL", secure, dead)).toEqual(["not json"]);
      const committed = await withAdmin((admin) => admin.fetchOffsets({ groupId: group, topics: [input] }));
      expect(committed[0]!.partitions.map((p) => [p.partition, p.offset]).sort()).toEqual([
        [0, "2"],
        [1, "1"],
      ]);

      const secrets = [SASL_USER.password, "ScramLoginModule"];
      const shown = [JSON.stringify(q.recentProgress), q.explain(), ...filesUnder(checkpoint).map((f) => readFileSync(f, "latin1"))];
      for (const secret of secrets) for (const text of shown) expect(text).not.toContain(secret);
    }));

  describe("bad paths fail within seconds, saying what to fix", () => {
    it("a wrong SCRAM password, never repeating it", () =>
      withSession(1, async (session) => {
        const { message, name, ms } = await readFailure(session, "SASL_SSL", { "kafka.security.protocol": "SASL_SSL", ...trustCa, ...scram("SCRAM-SHA-256", "wrong-password") });
        // Final: no retry can fix it, so the lookup does not spend fetchOffset.numRetries on it.
        expect(name).toBe("KafkaSecurityError");
        expect(message).toContain('the broker refused SCRAM-SHA-256 authentication as "alice": check the username and password in kafka.sasl.jaas.config');
        expect(message).not.toContain("wrong-password");
        expect(ms).toBeLessThan(20_000);
      }));

    it("a broker certificate signed by a CA the client does not trust", () =>
      withSession(1, async (session) => {
        const { message, ms } = await readFailure(session, "SSL", { "kafka.security.protocol": "SSL", "kafka.ssl.truststore.location": tlsFile("other-ca.pem") });
        expect(message).toContain("the broker's certificate is not signed by a CA this client trusts: set kafka.ssl.truststore.location");
        expect(ms).toBeLessThan(20_000);
      }));

    it("a broker certificate for another host name; hostname verification can be turned off", () =>
      withSession(1, async (session) => {
        const { message, ms } = await readFailure(session, "BADHOST", { "kafka.security.protocol": "SSL", ...trustCa });
        expect(message).toContain("the broker's certificate does not name the host connected to");
        expect(message).toContain('kafka.ssl.endpoint.identification.algorithm to ""');
        expect(ms).toBeLessThan(20_000);
        expect(await readValues(session, "BADHOST", { "kafka.security.protocol": "SSL", ...trustCa, "kafka.ssl.endpoint.identification.algorithm": "" })).toEqual(VALUES);
      }));

    it("an expired broker certificate", () =>
      withSession(1, async (session) => {
        const { message, ms } = await readFailure(session, "EXPIRED", { "kafka.security.protocol": "SSL", ...trustCa });
        expect(message).toContain("the broker's certificate has expired");
        expect(ms).toBeLessThan(20_000);
      }));

    it("a plaintext client against a TLS listener does not hang", () =>
      withSession(1, async (session) => {
        const { message, ms } = await readFailure(session, "SSL", {});
        expect(message).toContain("if the listener uses TLS, set kafka.security.protocol to SSL or SASL_SSL (it is PLAINTEXT)");
        expect(ms).toBeLessThan(20_000);
      }));

    it("a TLS client against a plaintext listener", () =>
      withSession(1, async (session) => {
        const { message, ms } = await readFailure(session, "PLAINTEXT", { "kafka.security.protocol": "SSL", ...trustCa });
        expect(message).toContain("the TLS handshake failed: the listener at this address may not use TLS (kafka.security.protocol is SSL)");
        expect(ms).toBeLessThan(20_000);
      }));

    it("no client certificate where the broker requires one", () =>
      withSession(1, async (session) => {
        const { message, ms } = await readFailure(session, "MTLS", { "kafka.security.protocol": "SSL", ...trustCa });
        expect(message).toContain("sslv3 alert bad certificate (TLS alert 42): the broker asks for a client certificate (mutual TLS): set kafka.ssl.keystore.location");
        expect(ms).toBeLessThan(20_000);
      }));

    it("a SASL client against a listener without SASL, and a TLS client without SASL against a SASL listener", () =>
      withSession(1, async (session) => {
        const sasl = await readFailure(session, "SSL", { "kafka.security.protocol": "SASL_SSL", ...trustCa, ...scram("SCRAM-SHA-256") });
        expect(sasl.message).toContain("the listener does not use SASL: set kafka.security.protocol to SSL (it is SASL_SSL), or connect to the broker's SASL listener");
        const tlsOnly = await readFailure(session, "SASL_SSL", { "kafka.security.protocol": "SSL", ...trustCa });
        expect(tlsOnly.message).toContain("if the listener expects SASL, set kafka.security.protocol to SASL_SSL and kafka.sasl.mechanism");
        expect(Math.max(sasl.ms, tlsOnly.ms)).toBeLessThan(20_000);
      }));

    it("a PKCS12 keystore password that does not open the store, never repeating it", () =>
      withSession(1, async (session) => {
        const { message } = await readFailure(session, "MTLS", {
          "kafka.security.protocol": "SSL",
          ...trustCa,
          "kafka.ssl.keystore.location": tlsFile("client.p12"),
          "kafka.ssl.keystore.password": "not-the-password",
        });
        expect(message).toContain(`kafka.ssl.keystore.password does not open the keystore kafka.ssl.keystore.location (${tlsFile("client.p12")})`);
        expect(message).not.toContain("not-the-password");
      }));
  });
});
