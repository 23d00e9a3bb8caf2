// A remote session and the server it talks to: the token the server requires, a server that goes away or freezes
// mid-session (through a TCP relay the test controls), and TLS asked of Spark's plaintext port.
import * as net from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { Session } from "../../api/session.js";
import { SparkConnectError } from "../../errors/errors.js";
import { sparkRemote } from "../../testing/spark-connect.js";
import { parseConnectionString } from "./connection-string.js";

const Row = z.object({ n: z.int() });
const closers: (() => void)[] = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

const server = parseConnectionString(sparkRemote());
/** The test server's address with other parameters: the token as given, or none. */
function url(params: string, host = `${server.host}:${server.port}`): string {
  return `sc://${host}/${params}`;
}

async function count(session: Session): Promise<number> {
  return session.createDataFrame([{ n: 1 }, { n: 2 }], Row).count();
}

async function failureOf(session: Session): Promise<SparkConnectError> {
  const started = Date.now();
  const e = await count(session).then(
    () => new Error("the call succeeded"),
    (err: unknown) => err,
  );
  expect(Date.now() - started).toBeLessThan(10_000);
  expect(e).toBeInstanceOf(SparkConnectError);
  return e as SparkConnectError;
}

/** A TCP relay to the test server that the test can freeze (stop forwarding, keep the sockets) or close. */
async function relay(): Promise<{ port: number; freeze(): void; close(): void }> {
  const sockets = new Set<net.Socket>();
  let frozen = false;
  const relayServer = net.createServer((client) => {
    const upstream = net.connect(server.port, server.host);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("error", () => undefined);
      s.on("close", () => sockets.delete(s));
    }
    client.on("data", (d) => frozen || upstream.write(d));
    upstream.on("data", (d) => frozen || client.write(d));
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
  });
  await new Promise<void>((resolve) => relayServer.listen(0, "127.0.0.1", resolve));
  const close = () => {
    relayServer.close();
    for (const s of sockets) s.destroy();
  };
  closers.push(close);
  return { port: (relayServer.address() as net.AddressInfo).port, freeze: () => (frozen = true), close };
}

describe("a remote session and its server", () => {
  it("the server's token: missing or wrong is refused by Spark, with what to do", async () => {
    expect(server.token).not.toBeNull();
    const none = new Session({ remote: url(";user_id=sluice") });
    const wrong = new Session({ remote: url(";token=not-the-token") });
    const right = new Session({ remote: url(`;token=${server.token};user_id=ana;user_agent=sluice-test`) });
    try {
      const missing = await failureOf(none);
      expect(missing.code).toBe("UNAUTHENTICATED");
      expect(missing.message).toContain("refused the credentials: No authentication token provided; give the server's token as ;token=...");
      const bad = await failureOf(wrong);
      expect(bad.code).toBe("UNAUTHENTICATED");
      expect(bad.message).toContain("Invalid authentication token");
      expect(bad.message).not.toContain("not-the-token");
      expect(await count(right)).toBe(2);
    } finally {
      await Promise.all([none.stop(), wrong.stop(), right.stop()]);
    }
  });

  it("TLS asked of Spark's plaintext port fails at once, saying so", async () => {
    const session = new Session({ remote: url(`;token=${server.token};use_ssl=true`) });
    try {
      const e = await failureOf(session);
      expect(e.message).toContain("does not speak TLS, but the connection string asks for it");
    } finally {
      await session.stop();
    }
  });

  it("a server that goes away mid-session: the next call fails with UNAVAILABLE, naming it, without hanging", async () => {
    const r = await relay();
    const session = new Session({ remote: { url: url(`;token=${server.token}`, `127.0.0.1:${r.port}`), pingInterval: "1 second" } });
    try {
      expect(await count(session)).toBe(2);
      r.close();
      const e = await failureOf(session);
      expect(e.code).toBe("UNAVAILABLE");
      expect(e.message).toMatch(new RegExp(`^count: cannot reach the Spark Connect server at sc://127\\.0\\.0\\.1:${r.port}/;token=\\*\\*\\*: `));
    } finally {
      await session.stop();
    }
  });

  it("a server that freezes mid-session: the call ends after the ping timeouts of its attempts", async () => {
    const r = await relay();
    // Each attempt waits for two ping intervals; the call is tried once more (maxReattachAttempts) before it fails.
    const session = new Session({ remote: { url: url(`;token=${server.token}`, `127.0.0.1:${r.port}`), pingInterval: "1 second", maxReattachAttempts: 1 } });
    try {
      expect(await count(session)).toBe(2);
      r.freeze();
      const e = await failureOf(session);
      expect(e.code).toBe("UNAVAILABLE");
      expect(e.message).toContain("PING timed out");
    } finally {
      await session.stop();
    }
  });
});
