import { mkdtempSync, rmSync } from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { col, count, window } from "../api/functions.js";
import type { MemoryStream } from "../api/memory-stream.js";
import { Session } from "../api/session.js";
import { OptionError } from "../errors/errors.js";
import type { SchemaOfZod } from "../schema/zod-schema.js";
import type { StreamingQuery } from "../runtime/streaming-query.js";
import type { SqlServer } from "./sql-server.js";

/**
 * The server through the real `pg` client over loopback: tables that change while a stream runs,
 * the extended protocol with parameters, every type's round trip, errors with their SQLSTATEs,
 * authentication, and clients that misbehave.
 */

const PASSWORD = "s3cret!";
const Word = z.object({ word: z.string(), time: z.date() });
const t = (s: string) => new Date(`2026-12-02T${s}Z`);

let dir: string;
let session: Session;
let server: SqlServer;
let words: MemoryStream<SchemaOfZod<typeof Word>>;
let counts: StreamingQuery;
let windows: StreamingQuery;

function client(options: pg.ClientConfig = {}): pg.Client {
  return new pg.Client({ host: "127.0.0.1", port: server.port, user: "sluice", password: PASSWORD, database: "sluice", ...options });
}

async function withClient<T>(fn: (c: pg.Client) => Promise<T>, options: pg.ClientConfig = {}): Promise<T> {
  const c = client(options);
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/** The error a query fails with, as the pg client reports it. */
async function failure(c: pg.Client, sql: string, values?: unknown[]): Promise<{ code?: string; message: string; position?: string }> {
  try {
    await c.query(sql, values);
  } catch (e) {
    const { code, message, position } = e as pg.DatabaseError;
    return { code, message, ...(position === undefined ? {} : { position }) };
  }
  throw new Error(`${sql} did not fail`);
}

/** A protocol 3.0 StartupMessage, as a client's first bytes. */
function startupPacket(user: string): Buffer {
  const body = Buffer.from(`user\0${user}\0database\0sluice\0\0`);
  const head = Buffer.alloc(8);
  head.writeInt32BE(8 + body.length, 0);
  head.writeInt32BE(196_608, 4);
  return Buffer.concat([head, body]);
}

/** What the server sends on a raw connection after `bytes`, until it closes the connection, and when it closed it (ms). */
function rawExchange(port: number, bytes: Buffer[]): Promise<{ reply: string; closedAfterMs: number }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = net.connect(port, "127.0.0.1", () => {
      for (const b of bytes) socket.write(b);
    });
    const chunks: Buffer[] = [];
    socket.on("data", (c) => chunks.push(c));
    socket.on("error", reject);
    socket.on("close", () => resolve({ reply: Buffer.concat(chunks).toString("latin1"), closedAfterMs: Date.now() - started }));
  });
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), "sluice-sql-server-"));
  session = new Session({ workers: 0, checkpointLocation: dir });
  words = session.memoryStream(Word);
  counts = words.toDF().groupBy("word").agg(count().alias("n")).writeStream.format("memory").queryName("word_counts").outputMode("complete").start();
  windows = words
    .toDF()
    .groupBy(window(col("time"), "5 minutes"))
    .agg(count().alias("n"))
    .writeStream.format("memory")
    .queryName("per_window")
    .outputMode("complete")
    .start();
  words.addData({ word: "cat", time: t("09:00:00") }, { word: "dog", time: t("09:01:00") }, { word: "cat", time: t("09:06:00") });
  await counts.processAllAvailable();
  await windows.processAllAvailable();
  server = await session.serveSql({ port: 0, password: PASSWORD });
});

afterAll(async () => {
  await session.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("SELECT over the memory-sink table of a running query", () => {
  it("answers from the table as it stands, and again after the stream has moved on", () =>
    withClient(async (c) => {
      const before = await c.query("SELECT word, n FROM word_counts ORDER BY word");
      expect(before.fields.map((f) => [f.name, f.dataTypeID])).toEqual([
        ["word", 25],
        ["n", 20],
      ]);
      // int8 arrives as text, which the pg package keeps as a string (its default for bigint).
      expect(before.rows).toEqual([
        { word: "cat", n: "2" },
        { word: "dog", n: "1" },
      ]);
      expect(before.command).toBe("SELECT");
      expect(before.rowCount).toBe(2);

      words.addData({ word: "eel", time: t("09:07:00") }, { word: "dog", time: t("09:08:00") });
      await counts.processAllAvailable();
      await windows.processAllAvailable();
      const after = await c.query("SELECT word, n FROM word_counts ORDER BY word");
      expect(after.rows).toEqual([
        { word: "cat", n: "2" },
        { word: "dog", n: "2" },
        { word: "eel", n: "1" },
      ]);
    }));

  it("binds $n parameters of the extended protocol as literals", () =>
    withClient(async (c) => {
      const r = await c.query("SELECT word FROM word_counts WHERE n > $1 AND word <> $2 ORDER BY word", [1, "cat"]);
      expect(r.rows).toEqual([{ word: "dog" }]);
      // A named statement, prepared once and run with other values.
      const again = await c.query({ name: "by-word", text: "SELECT n FROM word_counts WHERE word = $1", values: ["eel"] });
      const twice = await c.query({ name: "by-word", text: "SELECT n FROM word_counts WHERE word = $1", values: ["cat"] });
      expect([again.rows, twice.rows]).toEqual([[{ n: "1" }], [{ n: "2" }]]);
      // Fetched a row per Execute: the portal is suspended (PortalSuspended) and resumed until done.
      const paged = await c.query({ text: "SELECT word FROM word_counts ORDER BY word", values: [], rows: 1 } as pg.QueryConfig);
      expect(paged.rows).toEqual([{ word: "cat" }, { word: "dog" }, { word: "eel" }]);
    }));

  it("sends windows as json, which the client parses", () =>
    withClient(async (c) => {
      const r = await c.query("SELECT window, n FROM per_window ORDER BY window.start");
      expect(r.fields.map((f) => f.dataTypeID)).toEqual([114, 20]);
      expect(r.rows).toEqual([
        { window: { start: "2026-12-02T09:00:00.000Z", end: "2026-12-02T09:05:00.000Z" }, n: "2" },
        { window: { start: "2026-12-02T09:05:00.000Z", end: "2026-12-02T09:10:00.000Z" }, n: "3" },
      ]);
    }));
});

describe("types", () => {
  const Typed = z.object({
    i: z.int32().nullable(),
    big: z.int().nullable(),
    x: z.number().nullable(),
    ok: z.boolean().nullable(),
    s: z.string().nullable(),
    bytes: z.instanceof(Uint8Array).nullable(),
    at: z.date().nullable(),
  });
  beforeAll(() => {
    session
      .createDataFrame(
        [
          { i: 1, big: 9007199254740993n as unknown as number, x: 2.5, ok: true, s: "é", bytes: Uint8Array.of(0, 255), at: t("09:00:00.250") },
          { i: null, big: null, x: null, ok: null, s: null, bytes: null, at: null },
        ],
        Typed,
      )
      .createOrReplaceTempView("typed");
  });

  it("round-trip through the pg client's parsers in text format", () =>
    withClient(async (c) => {
      const r = await c.query("SELECT * FROM typed");
      expect(r.fields.map((f) => f.dataTypeID)).toEqual([23, 20, 701, 16, 25, 17, 1184]);
      expect(r.rows).toEqual([
        { i: 1, big: "9007199254740993", x: 2.5, ok: true, s: "é", bytes: Buffer.from([0, 255]), at: t("09:00:00.250") },
        { i: null, big: null, x: null, ok: null, s: null, bytes: null, at: null },
      ]);
    }));

  it("parameters of no declared type take the type the statement needs", () =>
    withClient(async (c) => {
      // The pg package sends a Date as text, a Buffer as binary, numbers and booleans as text, all of type 0.
      const r = await c.query("SELECT i FROM typed WHERE at = $1 AND s = $2 AND ok = $3 AND x > $4 AND bytes = $5", [t("09:00:00.250"), "é", true, 2, Buffer.from([0, 255])]);
      expect(r.rows).toEqual([{ i: 1 }]);
      // Text that reads as a number, compared with a string column, stays a string.
      expect((await c.query("SELECT n FROM word_counts WHERE word = $1", ["42"])).rows).toEqual([]);
      // A placeholder in a simple query (no parameters given) is an error, as in Postgres.
      expect(await failure(c, "SELECT n FROM word_counts WHERE word = $1")).toEqual({ code: "42P02", message: "there is no parameter $1", position: "40" });
    }));

  it("round-trip in binary format when the client asks for it", () =>
    withClient(
      async (c) => {
        const r = await c.query("SELECT i, x, ok, s, at FROM typed");
        expect(r.rows).toEqual([
          { i: 1, x: 2.5, ok: true, s: "é", at: t("09:00:00.250") },
          { i: null, x: null, ok: null, s: null, at: null },
        ]);
      },
      { binary: true } as pg.ClientConfig,
    ));
});

describe("errors carry Postgres's SQLSTATE", () => {
  it("a syntax error: 42601 with the position of the offending word", () =>
    withClient(async (c) => {
      expect(await failure(c, "SELECT word FORM word_counts")).toEqual({
        code: "42601",
        message: expect.stringContaining("Syntax error at or near 'word_counts'"),
        position: "18",
      });
      // The connection carries on.
      expect((await c.query("SELECT count(*) AS n FROM word_counts")).rows).toEqual([{ n: "3" }]);
    }));

  it("an unknown table: 42P01; an unknown column: 42703", () =>
    withClient(async (c) => {
      expect(await failure(c, "SELECT * FROM nowhere")).toMatchObject({ code: "42P01", message: expect.stringContaining("`nowhere` cannot be found") });
      expect(await failure(c, "SELECT colour FROM word_counts")).toMatchObject({ code: "42703" });
    }));

  it("a stream selected directly: 0A000 with Spark's message", () =>
    withClient(async (c) => {
      words.toDF().createOrReplaceTempView("live_words");
      expect(await failure(c, "SELECT * FROM live_words")).toEqual({ code: "0A000", message: "Queries with streaming sources must be executed with writeStream.start()" });
    }));

  it("writes and the Postgres catalog are refused", () =>
    withClient(async (c) => {
      expect(await failure(c, "INSERT INTO word_counts VALUES ('x', 1)")).toEqual({
        code: "25006",
        message: "cannot execute INSERT in a read-only transaction: Sluice serves SELECT queries over memory-sink tables and temp views",
      });
      expect((await failure(c, "SELECT relname FROM pg_catalog.pg_class")).code).toBe("0A000");
    }));
});

describe("session commands clients send", () => {
  it("answers version(), SHOW and SET, and acknowledges transactions", () =>
    withClient(async (c) => {
      expect((await c.query("SELECT version()")).rows[0].version).toMatch(/^PostgreSQL 16\.0 \(Sluice\) on /);
      expect((await c.query("SHOW server_version")).rows).toEqual([{ server_version: "16.0 (Sluice)" }]);
      expect((await c.query("SHOW TIME ZONE")).rows).toEqual([{ TimeZone: "UTC" }]);
      expect((await c.query("SET application_name = 'dashboards'")).command).toBe("SET");
      expect((await c.query("SHOW application_name")).rows).toEqual([{ application_name: "dashboards" }]);
      expect(await failure(c, "SET TimeZone = 'Europe/Paris'")).toEqual({ code: "22023", message: 'invalid value for parameter "TimeZone": "Europe/Paris"' });
      expect((await c.query("BEGIN")).command).toBe("BEGIN");
      expect((await c.query("SELECT n FROM word_counts WHERE word = 'cat'")).rows).toEqual([{ n: "2" }]);
      expect((await c.query("COMMIT")).command).toBe("COMMIT");
    }));

  it("a failed transaction block refuses commands until it ends", () =>
    withClient(async (c) => {
      await c.query("BEGIN");
      await failure(c, "SELECT * FROM nowhere");
      expect(await failure(c, "SELECT 1")).toEqual({ code: "25P02", message: "current transaction is aborted, commands ignored until end of transaction block" });
      expect((await c.query("ROLLBACK")).command).toBe("ROLLBACK");
      expect((await c.query("SELECT count(*) AS n FROM word_counts")).rows).toEqual([{ n: "3" }]);
    }));
});

describe("statements that take too long", () => {
  /**
   * A session with a worker thread: its first query waits for the thread to start (a second or
   * more), long past the timeouts below, while the event loop stays free to notice them.
   */
  async function withSlowFirstQuery(fn: (port: number, session: Session) => Promise<void>): Promise<void> {
    const workerSession = new Session({ workers: 1, checkpointLocation: path.join(dir, "slow") });
    try {
      workerSession.createDataFrame([{ v: 1 }], z.object({ v: z.int32() })).createOrReplaceTempView("slow");
      const s = await workerSession.serveSql({ port: 0 });
      await fn(s.port, workerSession);
    } finally {
      await workerSession.stop();
    }
  }

  it("are canceled at statement_timeout with 57014, and the connection carries on", () =>
    withSlowFirstQuery((port) =>
      withClient(
        async (c) => {
          await c.query("SET statement_timeout = 1");
          expect(await failure(c, "SELECT v FROM slow")).toEqual({ code: "57014", message: "canceling statement due to statement timeout" });
          await c.query("SET statement_timeout TO DEFAULT");
          expect((await c.query("SELECT v FROM slow")).rows).toEqual([{ v: 1 }]);
        },
        { port },
      ),
    ));

  it("are canceled by a cancel request on another connection", () =>
    withSlowFirstQuery((port) =>
      withClient(
        async (c) => {
          const running = failure(c, "SELECT v FROM slow");
          await new Promise((resolve) => setTimeout(resolve, 100));
          // CancelRequest: length 16, code 80877102, the process id and secret key of BackendKeyData.
          const request = Buffer.alloc(16);
          request.writeInt32BE(16, 0);
          request.writeInt32BE(80_877_102, 4);
          request.writeInt32BE((c as unknown as { processID: number }).processID, 8);
          request.writeInt32BE((c as unknown as { secretKey: number }).secretKey, 12);
          net.connect(port, "127.0.0.1", function (this: net.Socket) {
            this.end(request);
          });
          expect(await running).toEqual({ code: "57014", message: "canceling statement due to user request" });
        },
        { port },
      ),
    ));
});

describe("authentication", () => {
  it("refuses a wrong password with 28P01, and an unknown user the same way", async () => {
    for (const options of [{ password: "wrong" }, { user: "mallory" }]) {
      const c = client(options);
      const error = await c.connect().then(
        () => null,
        (e: pg.DatabaseError) => ({ code: e.code, message: e.message }),
      );
      await c.end().catch(() => {});
      expect(error).toEqual({ code: "28P01", message: `password authentication failed for user "${options.user ?? "sluice"}"` });
    }
  });

  it("refuses to serve on a host other machines reach without a password", async () => {
    await expect(session.serveSql({ host: "0.0.0.0", port: 0 })).rejects.toThrow(OptionError);
    await expect(session.serveSql({ host: "0.0.0.0", port: 0 })).rejects.toThrow(/host "0.0.0.0" is reachable from other machines, so the server needs a password/);
  });

  it("lets a client that does not authenticate in time go", async () => {
    const quick = await session.serveSql({ port: 0, password: PASSWORD, authenticationTimeout: 300 });
    try {
      // Silent from the start: closed without a word.
      const silent = await rawExchange(quick.port, []);
      expect(silent.reply).toBe("");
      expect(silent.closedAfterMs).toBeGreaterThanOrEqual(250);
      // Started, asked for SCRAM (R, code 10), then silent: FATAL 57014, as Postgres says it.
      const started = await rawExchange(quick.port, [startupPacket("sluice")]);
      expect(started.reply).toBe(
        "R\0\0\0\x17\0\0\0\x0aSCRAM-SHA-256\0\0" + "E\0\0\0\x43SFATAL\0VFATAL\0C57014\0Mcanceling authentication due to timeout\0\0",
      );
      expect(started.closedAfterMs).toBeGreaterThanOrEqual(250);
    } finally {
      await quick.close();
    }
  });
});

describe("clients that misbehave", () => {
  it("closes a connection that sends garbage, and serves the next client", async () => {
    expect((await rawExchange(server.port, [Buffer.from("GET / HTTP/1.1\r\nHost: x\r\n\r\n")])).reply).toBe("");
    expect(await withClient(async (c) => (await c.query("SELECT count(*) AS n FROM word_counts")).rows)).toEqual([{ n: "3" }]);
  });

  it("refuses connections beyond maxConnections with 53300", async () => {
    const small = await session.serveSql({ port: 0, maxConnections: 1 });
    try {
      await withClient(
        async () => {
          const second = client({ port: small.port });
          const error = await second.connect().then(
            () => null,
            (e: pg.DatabaseError) => ({ code: e.code, message: e.message }),
          );
          await second.end().catch(() => {});
          expect(error).toEqual({ code: "53300", message: "sorry, too many clients already" });
        },
        { port: small.port },
      );
      // Both connections are gone once their clients have left.
      await vi.waitFor(() => expect(small.connectionCount).toBe(0));
    } finally {
      await small.close();
    }
  });

  it("answers an unknown message type after startup with FATAL 08P01", async () => {
    const trusting = await session.serveSql({ port: 0 });
    try {
      const socket = net.connect(trusting.port, "127.0.0.1");
      const received: Buffer[] = [];
      socket.on("data", (c) => {
        received.push(c);
        // After ReadyForQuery: a message of type 'G', which the protocol does not have.
        if (c.includes(Buffer.from("Z\0\0\0\x05I"))) socket.write(Buffer.from([0x47, 0, 0, 0, 4]));
      });
      socket.write(startupPacket("anyone"));
      await new Promise((resolve) => socket.on("close", resolve));
      const reply = Buffer.concat(received).toString("latin1");
      expect(reply.slice(reply.lastIndexOf("E"))).toBe("E\0\0\0\x3cSFATAL\0VFATAL\0C08P01\0Minvalid frontend message type 71\0\0");
    } finally {
      await trusting.close();
    }
  });
});
