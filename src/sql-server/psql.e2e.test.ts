import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { count } from "../api/functions.js";
import type { MemoryStream } from "../api/memory-stream.js";
import { Session } from "../api/session.js";
import type { StreamingQuery } from "../runtime/streaming-query.js";
import type { SchemaOfZod } from "../schema/zod-schema.js";
import type { SqlServer } from "./sql-server.js";

/**
 * The real psql client against a session whose streaming query keeps a memory-sink table up to
 * date: psql's own output, exactly as a user sees it.
 */

const PASSWORD = "pw-for-psql";
const Word = z.object({ word: z.string() });

let dir: string;
let session: Session;
let server: SqlServer;
let words: MemoryStream<SchemaOfZod<typeof Word>>;
let counts: StreamingQuery;

interface PsqlRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs psql against the server (`-X`: no ~/.psqlrc), with the password in PGPASSWORD. */
function psql(args: string[], password = PASSWORD): Promise<PsqlRun> {
  const url = `postgresql://sluice@127.0.0.1:${server.port}/sluice`;
  return new Promise((resolve, reject) => {
    execFile(
      "psql",
      [url, "-X", ...args],
      { env: { ...process.env, PGPASSWORD: password, PGCONNECT_TIMEOUT: "10", PSQL_PAGER: "", PAGER: "", LC_ALL: "C.UTF-8" }, timeout: 30_000 },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== "number") reject(error);
        else resolve({ code: error ? (error.code as number) : 0, stdout, stderr });
      },
    );
  });
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), "sluice-psql-"));
  session = new Session({ workers: 0, checkpointLocation: path.join(dir, "checkpoints") });
  words = session.memoryStream(Word);
  counts = words.toDF().groupBy("word").agg(count().alias("n")).writeStream.format("memory").queryName("word_counts").outputMode("complete").start();
  words.addData({ word: "cat" }, { word: "dog" }, { word: "cat" });
  await counts.processAllAvailable();
  server = await session.serveSql({ port: 0, password: PASSWORD });
});

afterAll(async () => {
  await session.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("psql against a running query", () => {
  it("sees the table change as the stream runs", async () => {
    const query = ["-A", "-t", "-c", "SELECT word, n FROM word_counts ORDER BY word"];
    expect(await psql(query)).toEqual({ code: 0, stdout: "cat|2\ndog|1\n", stderr: "" });
    words.addData({ word: "eel" }, { word: "dog" }, { word: "dog" });
    await counts.processAllAvailable();
    expect(await psql(query)).toEqual({ code: 0, stdout: "cat|2\ndog|3\neel|1\n", stderr: "" });
  });

  it("runs several statements sent as one query, printing each result", async () => {
    const run = await psql(["-A", "-t", "-c", "SHOW TimeZone; SELECT count(*) FROM word_counts; SELECT max(n) FROM word_counts"]);
    expect(run).toEqual({ code: 0, stdout: "UTC\n3\n3\n", stderr: "" });
  });

  it("prints psql's aligned table", async () => {
    const run = await psql(["-c", "SELECT word, n FROM word_counts WHERE n >= 2 ORDER BY n DESC"]);
    expect(run.stdout).toBe([" word | n ", "------+---", " dog  | 3", " cat  | 2", "(2 rows)", "", ""].join("\n"));
  });

  it("runs a script of several statements; a bad one reports its SQLSTATE and position", async () => {
    const script = path.join(dir, "session.sql");
    writeFileSync(
      script,
      [
        "\\set VERBOSITY verbose",
        "SHOW server_version;",
        "SELECT word FORM word_counts;",
        "SELECT * FROM no_such_table;",
        "BEGIN;",
        "SELECT count(*) AS words FROM word_counts;",
        "COMMIT;",
        "",
      ].join("\n"),
    );
    const run = await psql(["-f", script]);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(
      [" server_version ", "----------------", " 16.0 (Sluice)", "(1 row)", "", "BEGIN", " words ", "-------", "     3", "(1 row)", "", "COMMIT", ""].join("\n"),
    );
    expect(run.stderr).toBe(
      [
        `psql:${script}:3: ERROR:  42601: [PARSE_SYNTAX_ERROR] Syntax error at or near 'word_counts': extra input 'word_counts'.`,
        "LINE 1: SELECT word FORM word_counts;",
        "                         ^",
        `psql:${script}:4: ERROR:  42P01: [TABLE_OR_VIEW_NOT_FOUND] The table or view \`no_such_table\` cannot be found. ` +
          'Verify the spelling and correctness of the schema and catalog. A view is made with df.createOrReplaceTempView("no_such_table"), ' +
          'a memory sink\'s table with writeStream.format("memory").queryName("no_such_table").',
        "LINE 1: SELECT * FROM no_such_table;",
        "                      ^",
        "",
      ].join("\n"),
    );
  });

  it("refuses a wrong password", async () => {
    const run = await psql(["-c", "SELECT 1"], "not-the-password");
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toBe(`psql: error: connection to server at "127.0.0.1", port ${server.port} failed: FATAL:  password authentication failed for user "sluice"\n`);
  });
});
