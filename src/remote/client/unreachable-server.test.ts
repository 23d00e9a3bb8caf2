// What a remote session says when it cannot talk to a Spark Connect server: nothing listening, a host that does
// not resolve, a server that never answers, and TLS on one side only. Each ends in a clear error, within seconds.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import * as http2 from "node:http2";
import * as net from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { Session } from "../../api/session.js";
import { SparkConnectError } from "../../errors/errors.js";
import { tempDirs } from "../../testing/temp-dirs.js";

const folder = tempDirs("sluice-tls-");
const Row = z.object({ n: z.int() });
const servers: { close(): void }[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
});

/** Collects one row through a remote session at `url`; resolves to the error and how long it took. */
async function failure(url: string, options: { pingInterval?: string } = {}): Promise<{ error: SparkConnectError; ms: number }> {
  const session = new Session({ remote: { url, ...options } });
  const started = Date.now();
  try {
    await session.createDataFrame([{ n: 1 }], Row).collect();
    throw new Error("the call succeeded");
  } catch (e) {
    if (!(e instanceof SparkConnectError)) throw e;
    return { error: e, ms: Date.now() - started };
  } finally {
    await session.stop();
  }
}

async function listen(server: net.Server | http2.Http2Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  servers.push(server);
  return (server.address() as net.AddressInfo).port;
}

async function freePort(): Promise<number> {
  const s = net.createServer();
  const port = await listen(s);
  servers.pop();
  await new Promise((r) => s.close(r));
  return port;
}

describe("a remote session that cannot reach its server", () => {
  it("nothing listens at the address: UNAVAILABLE, naming the server, at once", async () => {
    const port = await freePort();
    const { error, ms } = await failure(`sc://127.0.0.1:${port}`);
    expect(error.code).toBe("UNAVAILABLE");
    expect(error.message).toMatch(new RegExp(`^collect: cannot reach the Spark Connect server at sc://127\\.0\\.0\\.1:${port}: .*ECONNREFUSED.*; is it running at that port\\?`));
    expect(ms).toBeLessThan(3_000);
  });

  it("the host does not resolve", async () => {
    const { error } = await failure("sc://no-such-host.invalid:15002");
    expect(error.code).toBe("UNAVAILABLE");
    expect(error.message).toContain("the host name does not resolve: check the host of the connection string");
  });

  it("a server that accepts the connection but never answers is given up on within two ping intervals", async () => {
    const silent = net.createServer(() => undefined);
    const port = await listen(silent);
    const { error, ms } = await failure(`sc://127.0.0.1:${port}`, { pingInterval: "500 ms" });
    expect(error.code).toBe("UNAVAILABLE");
    expect(error.message).toContain("it accepted the connection but does not answer");
    expect(ms).toBeLessThan(5_000);
  });

  it("TLS asked of a plaintext server (use_ssl=true): says the server does not speak TLS", async () => {
    const plaintext = http2.createServer();
    const port = await listen(plaintext);
    const { error, ms } = await failure(`sc://127.0.0.1:${port}/;use_ssl=true`);
    expect(error.message).toContain(`the Spark Connect server at sc://127.0.0.1:${port}/;use_ssl=true does not speak TLS, but the connection string asks for it`);
    expect(ms).toBeLessThan(3_000);
  });

  it("plaintext towards a TLS server: says to add use_ssl=true", async () => {
    const d = folder();
    execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1", "-keyout", d.path("key.pem"), "-out", d.path("cert.pem")], { stdio: "ignore" });
    const tls = http2.createSecureServer({ key: readFileSync(d.path("key.pem")), cert: readFileSync(d.path("cert.pem")) });
    const port = await listen(tls);
    const { error, ms } = await failure(`sc://127.0.0.1:${port}`, { pingInterval: "1 second" });
    expect(error.message).toContain("if it serves TLS, add ;use_ssl=true to the connection string");
    expect(ms).toBeLessThan(5_000);
  });
});
