import { createServer, type Server } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { Session } from "../api/session.js";
import { OptionError } from "../errors/errors.js";
import { listen } from "./listen.js";
import { withUiSession } from "./test-support.js";

const occupied: Server[] = [];
afterEach(async () => {
  await Promise.all(occupied.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/** Holds a port with a real server; resolves to false when something else holds it already. */
async function occupy(port: number): Promise<boolean> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => {
      occupied.push(server);
      resolve(true);
    });
  });
}

/** Whether a port is free now (bound and let go at once). */
async function isFree(port: number): Promise<boolean> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

function portOf(url: string | null): number {
  return Number(new URL(url!).port);
}

describe("the session's web servers", () => {
  it("are off by default: no URL and nothing listening", async () => {
    const session = new Session({ workers: 0 });
    await session.webReady();
    expect([session.uiWebUrl, session.metricsUrl]).toEqual([null, null]);
    await session.stop();
  });

  it("take 4040 with ui: true, or, as Spark's UI, the next free port when it is taken", async () => {
    await occupy(4040); // ours, or already someone else's: taken either way
    let expected = 4041;
    while (!(await isFree(expected))) expected++;
    await withUiSession({ ui: true }, async (session) => {
      expect(session.uiWebUrl).toBe(`http://127.0.0.1:${expected}`);
      expect(session.metricsUrl).toBe(`http://127.0.0.1:${expected}/metrics`);
      expect((await fetch(`${session.uiWebUrl}/StreamingQuery/`)).status).toBe(200);
    });
  });

  it("try at most 16 ports after the first, then say every one was taken", async () => {
    const first = createServer();
    const base = await listen(first, { option: "ui", host: "127.0.0.1", port: 0, retries: 0 });
    occupied.push(first);
    for (let p = base + 1; p <= base + 2; p++) await occupy(p);
    const server = createServer();
    const err = await listen(server, { option: "ui", host: "127.0.0.1", port: base, retries: 2 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OptionError);
    expect((err as Error).message).toBe(
      `Session: option "ui": ports ${base} to ${base + 2} on 127.0.0.1 are all in use: give ui: { port } a free port, or port 0 for any free one`,
    );
  });

  it("refuse a port asked for by number that is in use, naming the option", async () => {
    const holder = createServer();
    const port = await listen(holder, { option: "ui", host: "127.0.0.1", port: 0, retries: 0 });
    occupied.push(holder);
    const session = new Session({ workers: 0, ui: { port } });
    const err = await session.webReady().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OptionError);
    expect((err as Error).message).toBe(
      `Session: option "ui.port": port ${port} on 127.0.0.1 is already in use: stop what listens there, choose another ui.port, or give ui: true to take the first free port from the default`,
    );
    expect(session.uiWebUrl).toBeNull();
    await session.stop();
  });

  it("refuse options of the wrong shape, saying what they accept", () => {
    expect(() => new Session({ ui: 4040 as never })).toThrow(OptionError);
    expect(() => new Session({ ui: 4040 as never })).toThrow(
      'Session: option "ui": ui must be true, false or { port?: number; host?: string } (port 4040 by default, host 127.0.0.1) (got 4040)',
    );
    expect(() => new Session({ ui: { port: 70000 } })).toThrow('Session: option "ui.port": ui.port must be 0 (any free port) to 65535 (got 70000)');
    expect(() => new Session({ metrics: { port: 1.5 } })).toThrow('Session: option "metrics.port": metrics.port must be a whole number (got 1.5)');
    expect(() => new Session({ metrics: { host: "" } })).toThrow(
      'Session: option "metrics.host": metrics.host must name an address, e.g. "127.0.0.1" or "0.0.0.0" (got "")',
    );
  });

  it("serve metrics alone on a port of their own, without the UI", () =>
    withUiSession({ metrics: { port: 0 } }, async (session) => {
      expect(session.uiWebUrl).toBeNull();
      expect(session.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
      const scrape = await fetch(session.metricsUrl!);
      expect(scrape.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
      expect(await scrape.text()).toContain("sluice_streaming_queries_active 0");
      const other = await fetch(new URL("/StreamingQuery/", session.metricsUrl!));
      expect([other.status, await other.text()]).toEqual([404, "not found: /StreamingQuery/ (this port serves /metrics)\n"]);
    }));

  it("leave /metrics off the UI when metrics: false", () =>
    withUiSession({ ui: { port: 0 }, metrics: false }, async (session) => {
      expect(session.metricsUrl).toBeNull();
      expect((await fetch(`${session.uiWebUrl}/metrics`)).status).toBe(404);
    }));

  it("close when the session stops, kept-alive connections included", async () => {
    const session = new Session({ workers: 0, ui: { port: 0 } });
    await session.webReady();
    const url = session.uiWebUrl!;
    const page = (await fetch(`${url}/StreamingQuery/`)).status;
    expect(page).toBe(200);
    await session.stop();
    expect(session.uiWebUrl).toBeNull();
    await expect(fetch(`${url}/StreamingQuery/`)).rejects.toThrow("fetch failed");
    expect(await isFree(portOf(url))).toBe(true);
  });
});
