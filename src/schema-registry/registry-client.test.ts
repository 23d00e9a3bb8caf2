import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { SchemaRegistryError } from "../errors/errors.js";
import { SchemaRegistryClient } from "./registry-client.js";
import type { SchemaRegistryOptions } from "./registry-options.js";

// The client against a registry played by a local HTTP server: what it sends, how it retries, times out,
// shares and caches requests, and what its errors say. The real registry's answers are in
// registry-client.registry.test.ts.

interface Seen {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** An answer of the fake registry; `hang` never answers, `drop` closes the connection; `json` is sent as application/json. */
type Answer = { status?: number; json?: unknown; text?: string; hang?: true; drop?: true };

let server: Server;
let base: string;
let seen: Seen[] = [];
let answers: ((req: Seen) => Answer)[] = [];
/** The answer once `answers` is used up. */
let otherwise: (req: Seen) => Answer;

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const request = { method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString("utf8") };
      seen.push(request);
      const answer = (answers.shift() ?? otherwise)(request);
      if (answer.hang) return;
      if (answer.drop) return void req.socket.destroy();
      const body = answer.json !== undefined ? JSON.stringify(answer.json) : (answer.text ?? "");
      res.writeHead(answer.status ?? 200, { "Content-Type": answer.json !== undefined ? "application/json" : "text/html" }).end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/apis/ccompat/v7`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  seen = [];
  answers = [];
  otherwise = () => ({ status: 500, json: { error_code: 50001, message: "unexpected request" } });
});

const AVRO = '{"type":"record","name":"Order","namespace":"com.example","fields":[{"name":"id","type":"long"}]}';
const client = (options: Partial<SchemaRegistryOptions> = {}) => new SchemaRegistryClient({ "schema.registry.url": base, maxRetries: 2, retryBackoffMs: 50, requestTimeoutMs: 2000, ...options });

/** A port nothing listens on: one the system just gave out and took back. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

async function failure(work: Promise<unknown>): Promise<SchemaRegistryError> {
  const error = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SchemaRegistryError);
  return error as SchemaRegistryError;
}

describe("schema registry client: requests", () => {
  it("reads a schema by id with Confluent's media types, the credentials and the extra headers", async () => {
    answers.push(() => ({ json: { schema: AVRO } }));
    const schema = await client({ "basic.auth.user.info": "KEY:SECRET", headers: { "X-Tenant": "blue" } }).schemaById(7);
    expect(schema).toEqual({ schemaType: "AVRO", schema: AVRO, references: [] });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ method: "GET", url: "/apis/ccompat/v7/schemas/ids/7", body: "" });
    expect(seen[0]!.headers).toMatchObject({
      accept: "application/vnd.schemaregistry.v1+json, application/vnd.schemaregistry+json; qs=0.9, application/json; qs=0.5",
      authorization: `Basic ${Buffer.from("KEY:SECRET").toString("base64")}`,
      "x-tenant": "blue",
    });
  });

  it("registers: schemaType only when not AVRO, references when there are some, normalize as a query parameter", async () => {
    answers.push(
      () => ({ json: { id: 41 } }),
      () => ({ json: { id: 42 } }),
    );
    const c = client({ "bearer.auth.token": "TOKEN" });
    const proto = 'syntax = "proto3"; message M { string a = 1; }';
    const references = [{ name: "common.proto", subject: "common", version: 2 }];
    expect(await c.register("a/b c", AVRO)).toBe(41);
    expect(await c.register("orders-value", proto, "PROTOBUF", { normalize: true, references })).toBe(42);
    expect(seen.map((r) => [r.method, r.url, r.headers["content-type"], r.headers.authorization, JSON.parse(r.body)])).toEqual([
      ["POST", "/apis/ccompat/v7/subjects/a%2Fb%20c/versions", "application/vnd.schemaregistry.v1+json", "Bearer TOKEN", { schema: AVRO }],
      ["POST", "/apis/ccompat/v7/subjects/orders-value/versions?normalize=true", "application/vnd.schemaregistry.v1+json", "Bearer TOKEN", { schema: proto, schemaType: "PROTOBUF", references }],
    ]);
  });

  it("reads versions, looks schemas up, checks and sets compatibility", async () => {
    const version = { subject: "orders-value", version: 3, id: 12, schema: AVRO };
    answers.push(
      () => ({ json: version }),
      () => ({ json: { ...version, schemaType: "AVRO", references: null } }),
      () => ({ json: version }),
      () => ({ json: { is_compatible: false, messages: ["READER_FIELD_MISSING_DEFAULT_VALUE: email"] } }),
      () => ({ json: { compatibility: "BACKWARD" } }),
      () => ({ json: { compatibilityLevel: "FULL" } }),
    );
    const c = client();
    const expected = { subject: "orders-value", version: 3, id: 12, schemaType: "AVRO", schema: AVRO, references: [] };
    expect(await c.latest("orders-value")).toEqual(expected);
    expect(await c.version("orders-value", 3)).toEqual(expected);
    expect(await c.lookup("orders-value", AVRO)).toEqual(expected);
    expect(await c.testCompatibility("orders-value", AVRO, "AVRO", { version: 2 })).toEqual({ compatible: false, messages: ["READER_FIELD_MISSING_DEFAULT_VALUE: email"] });
    await c.setCompatibility("orders-value", "BACKWARD");
    expect(await c.compatibility("orders-value")).toBe("FULL");
    expect(seen.map((r) => `${r.method} ${r.url} ${r.body}`)).toEqual([
      "GET /apis/ccompat/v7/subjects/orders-value/versions/latest ",
      "GET /apis/ccompat/v7/subjects/orders-value/versions/3 ",
      `POST /apis/ccompat/v7/subjects/orders-value ${JSON.stringify({ schema: AVRO })}`,
      `POST /apis/ccompat/v7/compatibility/subjects/orders-value/versions/2?verbose=true ${JSON.stringify({ schema: AVRO })}`,
      'PUT /apis/ccompat/v7/config/orders-value {"compatibility":"BACKWARD"}',
      "GET /apis/ccompat/v7/config/orders-value?defaultToGlobal=true ",
    ]);
  });
});

describe("schema registry client: caches", () => {
  it("concurrent asks for one id share one request, and later asks are answered from the cache", async () => {
    otherwise = () => ({ json: { schema: AVRO } });
    const c = client();
    const all = await Promise.all([c.schemaById(7), c.schemaById(7), c.schemaById(7), c.schemaById(8)]);
    expect(all.map((s) => s.schema)).toEqual([AVRO, AVRO, AVRO, AVRO]);
    await c.schemaById(7);
    expect(seen.map((r) => r.url).sort()).toEqual(["/apis/ccompat/v7/schemas/ids/7", "/apis/ccompat/v7/schemas/ids/8"]);
  });

  it("registration and lookup are cached per subject and schema; a failure is not cached", async () => {
    answers.push(
      () => ({ json: { id: 5 } }),
      () => ({ json: { id: 6 } }),
      () => ({ status: 404, json: { error_code: 40403, message: "Schema not found" } }),
      () => ({ json: { subject: "s", version: 1, id: 5, schema: AVRO } }),
    );
    const c = client();
    expect(await Promise.all([c.register("s", AVRO), c.register("s", AVRO), c.register("t", AVRO)])).toEqual([5, 5, 6]);
    expect(await c.register("s", AVRO)).toBe(5);
    await failure(c.lookup("s", AVRO));
    expect((await c.lookup("s", AVRO)).version).toBe(1);
    expect((await c.lookup("s", AVRO)).version).toBe(1);
    expect(seen.map((r) => `${r.method} ${r.url}`)).toEqual([
      "POST /apis/ccompat/v7/subjects/s/versions",
      "POST /apis/ccompat/v7/subjects/t/versions",
      "POST /apis/ccompat/v7/subjects/s",
      "POST /apis/ccompat/v7/subjects/s",
    ]);
  });
});

describe("schema registry client: retries and timeouts", () => {
  it("retries a 5xx, 408 or 429 answer retryBackoffMs apart and returns the answer that came", async () => {
    answers.push(
      () => ({ status: 503, text: "unavailable" }),
      () => ({ status: 429, json: { error_code: 42901, message: "Too many requests" } }),
      () => ({ json: { schema: AVRO } }),
    );
    const started = Date.now();
    expect((await client().schemaById(3)).schema).toBe(AVRO);
    expect(Date.now() - started).toBeGreaterThanOrEqual(100);
    expect(seen).toHaveLength(3);
  });

  it("fails after maxRetries retries of a 5xx, with the status and the registry's error", async () => {
    otherwise = () => ({ status: 500, json: { error_code: 50001, message: "Error in the backend data store" } });
    const error = await failure(client().schemaById(3));
    expect(error.message).toBe(`the schema registry at ${base} failed GET /schemas/ids/3 after 3 attempt(s) 50 ms apart: HTTP 500 (error 50001: Error in the backend data store)`);
    expect([error.url, error.request, error.status, error.errorCode]).toEqual([base, "GET /schemas/ids/3", 500, 50001]);
    expect(seen).toHaveLength(3);
  });

  it("abandons an attempt without an answer within requestTimeoutMs, and retries it", async () => {
    otherwise = () => ({ hang: true });
    const started = Date.now();
    const error = await failure(client({ requestTimeoutMs: 200, maxRetries: 1 }).schemaById(3));
    expect(Date.now() - started).toBeLessThan(2000);
    expect(error.message).toBe(
      `cannot reach the schema registry at ${base} after 2 attempt(s) 50 ms apart: no answer within 200 ms (requestTimeoutMs) (GET /schemas/ids/3). ` +
        "Check schema.registry.url; maxRetries and retryBackoffMs set how long Sluice waits for the registry",
    );
    expect([error.status, error.errorCode]).toEqual([undefined, undefined]);
    expect(seen).toHaveLength(2);
  });

  it("gives up on a registry that refuses connections after its retry budget, naming every URL", async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const started = Date.now();
    const error = await failure(new SchemaRegistryClient({ "schema.registry.url": `${url}, ${url}/b`, maxRetries: 3, retryBackoffMs: 100 }).schemaById(3));
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    expect(error.message).toBe(
      `cannot reach the schema registry at ${url}, ${url}/b after 4 attempt(s) 100 ms apart: ECONNREFUSED (GET /schemas/ids/3). ` +
        "Check schema.registry.url; maxRetries and retryBackoffMs set how long Sluice waits for the registry",
    );
  });

  it("a connection closed without an answer is retried too, and the failure says how it ended", async () => {
    otherwise = () => ({ drop: true });
    const error = await failure(client({ maxRetries: 1 }).latest("orders-value"));
    expect(error.message).toBe(
      `cannot reach the schema registry at ${base} after 2 attempt(s) 50 ms apart: other side closed (GET /subjects/orders-value/versions/latest). ` +
        "Check schema.registry.url; maxRetries and retryBackoffMs set how long Sluice waits for the registry",
    );
    expect(seen).toHaveLength(2);
  });

  it("tries the next URL when one cannot be reached, and keeps to the one that answered", async () => {
    otherwise = () => ({ json: { schema: AVRO } });
    const c = new SchemaRegistryClient({ "schema.registry.url": `http://127.0.0.1:${await closedPort()},${base}`, maxRetries: 1, retryBackoffMs: 10 });
    expect((await c.schemaById(1)).schema).toBe(AVRO);
    expect((await c.schemaById(2)).schema).toBe(AVRO);
    expect(seen.map((r) => r.url)).toEqual(["/apis/ccompat/v7/schemas/ids/1", "/apis/ccompat/v7/schemas/ids/2"]);
  });

  it("does not retry a 4xx answer", async () => {
    otherwise = () => ({ status: 404, json: { error_code: 40403, message: "Schema 9 not found" } });
    const error = await failure(client().schemaById(9));
    expect(error.message).toBe(`schema id 9 is not in the schema registry at ${base}: GET /schemas/ids/9 answered HTTP 404 (error 40403: Schema 9 not found)`);
    expect(seen).toHaveLength(1);
  });
});

describe("schema registry client: what its errors say", () => {
  it("names the user and the option to check when credentials are refused, never the password or token", async () => {
    otherwise = () => ({ status: 401, json: { error_code: 401, message: "Unauthorized" } });
    const basic = await failure(client({ "basic.auth.user.info": "alice:s3cret-pw" }).schemaById(1));
    expect(basic.message).toBe(
      `the schema registry at ${base} refused basic authentication as "alice": GET /schemas/ids/1 answered HTTP 401 (error 401: Unauthorized). Check the user and password in basic.auth.user.info`,
    );
    const fromUrl = await failure(client({ "schema.registry.url": base.replace("//", "//alice:s3cret-pw@") }).schemaById(1));
    expect(fromUrl.message).toBe(
      `the schema registry at ${base} refused basic authentication as "alice": GET /schemas/ids/1 answered HTTP 401 (error 401: Unauthorized). Check the user and password in schema.registry.url`,
    );
    const bearer = await failure(client({ "bearer.auth.token": "s3cret-token" }).schemaById(1));
    expect(bearer.message).toBe(
      `the schema registry at ${base} refused the bearer token: GET /schemas/ids/1 answered HTTP 401 (error 401: Unauthorized). Check bearer.auth.token (it may have expired)`,
    );
    const none = await failure(client().schemaById(1));
    expect(none.message).toBe(
      `the schema registry at ${base} needs credentials: GET /schemas/ids/1 answered HTTP 401 (error 401: Unauthorized). Set basic.auth.user.info ("user:password") or bearer.auth.token`,
    );
    for (const e of [basic, fromUrl, bearer, none]) expect(`${e.message} ${e.url} ${e.request}`).not.toMatch(/s3cret/);
    expect(seen).toHaveLength(4);
  });

  it("a 403: the credentials were accepted, not the request", async () => {
    otherwise = () => ({ status: 403, json: { error_code: 40301, message: "User is denied operation Write on Subject: orders-value" } });
    const error = await failure(client({ "basic.auth.user.info": "bob:pw" }).register("orders-value", AVRO));
    expect(error.message).toBe(
      `the schema registry at ${base} does not allow POST /subjects/orders-value/versions for "bob": HTTP 403 (error 40301: User is denied operation Write on Subject: orders-value). ` +
        "The credentials were accepted, but lack the permission for this request",
    );
  });

  it("says what a 404, 409 or 422 means for what was asked", async () => {
    answers.push(
      () => ({ status: 404, json: { error_code: 40401, message: "Subject 'orders-value' not found." } }),
      () => ({ status: 404, json: { error_code: 40402, message: "Version 7 not found." } }),
      () => ({ status: 404, json: { error_code: 40403, message: "Schema not found" } }),
      () => ({ status: 409, json: { error_code: 409, message: "Schema being registered is incompatible with an earlier schema" } }),
      () => ({ status: 422, json: { error_code: 42201, message: "Invalid schema" } }),
      () => ({ status: 400, text: "Not able to deserialize data provided." }),
    );
    const c = client();
    const messages = [
      await failure(c.latest("orders-value")),
      await failure(c.version("orders-value", 7)),
      await failure(c.lookup("orders-value", AVRO)),
      await failure(c.register("orders-value", AVRO)),
      await failure(c.register("orders-value", "{")),
      await failure(c.setCompatibility("orders-value", "BACKWARD")),
    ].map((e) => e.message);
    expect(messages).toEqual([
      `subject "orders-value" is not in the schema registry at ${base}: GET /subjects/orders-value/versions/latest answered HTTP 404 (error 40401: Subject 'orders-value' not found.)`,
      `subject "orders-value" has no version 7 in the schema registry at ${base}: GET /subjects/orders-value/versions/7 answered HTTP 404 (error 40402: Version 7 not found.)`,
      `the schema is not registered under subject "orders-value" in the schema registry at ${base}: POST /subjects/orders-value answered HTTP 404 (error 40403: Schema not found)`,
      `the schema registry at ${base} refused to register the schema under subject "orders-value": it is not compatible with the subject's earlier versions under its compatibility level: ` +
        "POST /subjects/orders-value/versions answered HTTP 409 (error 409: Schema being registered is incompatible with an earlier schema)",
      `the schema registry at ${base} refused the schema for subject "orders-value" as invalid: POST /subjects/orders-value/versions answered HTTP 422 (error 42201: Invalid schema)`,
      `the schema registry at ${base} refused PUT /config/orders-value: HTTP 400 (Not able to deserialize data provided.)`,
    ]);
  });

  it("a 2xx answer that is not a registry's: says what is wrong with it", async () => {
    answers.push(
      () => ({ text: "<html><body>Welcome to the proxy</body></html>" }),
      () => ({ json: { schema: 5 } }),
      () => ({ json: { schema: "x", schemaType: "XML" } }),
    );
    const c = client();
    const messages = [await failure(c.schemaById(1)), await failure(c.schemaById(2)), await failure(c.schemaById(3))].map((e) => e.message);
    expect(messages).toEqual([
      `the schema registry at ${base} answered GET /schemas/ids/1 with HTTP 200 and a body that is not a schema registry's answer (not JSON): <html><body>Welcome to the proxy</body></html>`,
      `the schema registry at ${base} answered GET /schemas/ids/2 with HTTP 200 and a body that is not a schema registry's answer (schema: Invalid input: expected string, received number): {"schema":5}`,
      `the schema registry at ${base} answered GET /schemas/ids/3 with HTTP 200 and a body that is not a schema registry's answer (schemaType: Invalid option: expected one of "AVRO"|"PROTOBUF"|"JSON"): {"schema":"x","schemaType":"XML"}`,
    ]);
  });
});
