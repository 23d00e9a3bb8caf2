import { describe, expect, it } from "vitest";
import { OptionError } from "../errors/errors.js";
import { resolveSchemaRegistryOptions, type SchemaRegistryOptions } from "./registry-options.js";

const basic = (userInfo: string) => `Basic ${Buffer.from(userInfo).toString("base64")}`;
const URL_ = "http://127.0.0.1:18081/apis/ccompat/v7";

/** The OptionError that `options` fail with: its message must not contain any of `secrets`. */
function failure(options: Record<string, unknown>, secrets: string[] = []): string {
  try {
    resolveSchemaRegistryOptions(options as unknown as SchemaRegistryOptions, "registry");
  } catch (e) {
    expect(e).toBeInstanceOf(OptionError);
    const message = (e as Error).message;
    for (const s of secrets) expect(message).not.toContain(s);
    return message;
  }
  throw new Error("expected the options to be refused");
}

describe("schema registry options", () => {
  it("defaults: no credentials, a 30 s request timeout, 3 retries 1 s apart", () => {
    expect(resolveSchemaRegistryOptions({ "schema.registry.url": `${URL_}/` })).toEqual({
      urls: [URL_],
      auth: { kind: "none" },
      headers: {},
      requestTimeoutMs: 30_000,
      maxRetries: 3,
      retryBackoffMs: 1000,
    });
  });

  it("takes several URLs, and numbers given as text as Spark's option() passes them", () => {
    expect(
      resolveSchemaRegistryOptions({
        "schema.registry.url": " http://a:8081 , https://b.example.com/registry/,",
        requestTimeoutMs: "5000",
        maxRetries: 0,
        retryBackoffMs: "250",
      }),
    ).toMatchObject({ urls: ["http://a:8081", "https://b.example.com/registry"], requestTimeoutMs: 5000, maxRetries: 0, retryBackoffMs: 250 });
  });

  it("basic auth from basic.auth.user.info (USER_INFO implied), or from the URL's user info (source URL, the default)", () => {
    expect(resolveSchemaRegistryOptions({ "schema.registry.url": URL_, "basic.auth.user.info": "KEY:se:cret" }).auth).toEqual({
      kind: "basic",
      user: "KEY",
      from: "basic.auth.user.info",
      header: basic("KEY:se:cret"),
    });
    expect(resolveSchemaRegistryOptions({ "schema.registry.url": "https://alice:p%40ss@sr.example.com", "basic.auth.credentials.source": "url" })).toEqual(
      expect.objectContaining({ urls: ["https://sr.example.com"], auth: { kind: "basic", user: "alice", from: "schema.registry.url", header: basic("alice:p@ss") } }),
    );
  });

  it("bearer auth, with Confluent Cloud's cluster and identity pool headers, and extra headers", () => {
    expect(
      resolveSchemaRegistryOptions({
        "schema.registry.url": URL_,
        "bearer.auth.credentials.source": "STATIC_TOKEN",
        "bearer.auth.token": "tok",
        "bearer.auth.logical.cluster": "lsrc-123",
        "bearer.auth.identity.pool.id": "pool-9",
        headers: { "X-Tenant": "blue" },
      }),
    ).toMatchObject({
      auth: { kind: "bearer", header: "Bearer tok" },
      headers: { "X-Tenant": "blue", "target-sr-cluster": "lsrc-123", "Confluent-Identity-Pool-Id": "pool-9" },
    });
  });

  it("refuses a missing or malformed URL, naming the option; a password in it is hidden", () => {
    expect(failure({})).toBe("registry: schema.registry.url is required: the registry's URL, such as http://127.0.0.1:8081 (several separated by commas)");
    expect(failure({ "schema.registry.url": "ftp://bob:hunter2@host" }, ["hunter2"])).toBe(
      'registry: option "schema.registry.url": "ftp://bob:[hidden]@host" is not an http:// or https:// URL (got "ftp://bob:[hidden]@host")',
    );
    expect(failure({ "schema.registry.url": "localhost:8081" })).toBe(
      'registry: option "schema.registry.url": "localhost:8081" is not an http:// or https:// URL (got "localhost:8081")',
    );
    expect(failure({ "schema.registry.url": "http://a b" })).toBe('registry: option "schema.registry.url": "http://a b" is not a URL, such as http://127.0.0.1:8081 (got "http://a b")');
    expect(failure({ "schema.registry.url": " , " })).toBe('registry: option "schema.registry.url": schema.registry.url names no URL (got " , ")');
    expect(failure({ "schema.registry.url": "http://u:one@a,http://u:two@b" }, ["one", "two"])).toBe(
      'registry: option "schema.registry.url": the URLs in schema.registry.url carry different credentials: give them all the same, or use basic.auth.user.info (got "http://u:[hidden]@a,http://u:[hidden]@b")',
    );
  });

  it("never repeats a secret, not even a wrong one", () => {
    expect(failure({ "schema.registry.url": URL_, "basic.auth.user.info": "no-colon-secret" }, ["no-colon-secret"])).toBe(
      'registry: option "basic.auth.user.info": basic.auth.user.info must be "user:password" (for Confluent Cloud, the registry API key and secret)',
    );
    expect(failure({ "schema.registry.url": URL_, "bearer.auth.token": 12345678 }, ["12345678"])).toBe(
      'registry: option "bearer.auth.token": bearer.auth.token must be text',
    );
    expect(failure({ "schema.registry.url": URL_, headers: { "X-Api-Key": 98765432 } }, ["98765432"])).toBe(
      'registry: option "headers.X-Api-Key": headers: every header value must be text',
    );
    expect(failure({ "schema.registry.url": URL_, "basic.auth.user.info": "u:pw-secret", "basic.auth.userinfo": "u:pw-secret" }, ["pw-secret"])).toMatch(
      /^registry: option "\(options\)": unknown option\(s\) "basic\.auth\.userinfo"; the schema registry options are schema\.registry\.url, basic\.auth\.credentials\.source, /,
    );
  });

  it("refuses credentials that contradict each other, and sources Sluice does not support", () => {
    const url = { "schema.registry.url": URL_ };
    expect(failure({ ...url, "basic.auth.credentials.source": "SASL_INHERIT" })).toBe(
      'registry: option "basic.auth.credentials.source": basic.auth.credentials.source SASL_INHERIT (the Kafka client\'s SASL credentials) is not supported: set it to USER_INFO and the credentials in basic.auth.user.info (got "SASL_INHERIT")',
    );
    expect(failure({ ...url, "basic.auth.credentials.source": "URL", "basic.auth.user.info": "u:p" })).toBe(
      "registry: basic.auth.user.info is set but basic.auth.credentials.source is URL (the credentials of schema.registry.url): set it to USER_INFO, or leave it unset",
    );
    expect(failure({ ...url, "basic.auth.credentials.source": "USER_INFO" })).toBe('registry: basic.auth.credentials.source USER_INFO needs basic.auth.user.info: "user:password"');
    expect(failure({ "schema.registry.url": "http://u:p@a", "basic.auth.user.info": "u:p" })).toBe(
      "registry: schema.registry.url carries credentials and basic.auth.user.info is set: keep one of them",
    );
    expect(failure({ ...url, "basic.auth.user.info": "u:p", "bearer.auth.token": "t" })).toBe(
      "registry: both basic authentication and bearer.auth.token are set: a registry takes one of them",
    );
    expect(failure({ ...url, "bearer.auth.credentials.source": "OAUTHBEARER" })).toBe(
      'registry: option "bearer.auth.credentials.source": bearer.auth.credentials.source OAUTHBEARER is not supported: Sluice sends the token of bearer.auth.token (STATIC_TOKEN) (got "OAUTHBEARER")',
    );
    expect(failure({ ...url, "bearer.auth.credentials.source": "STATIC_TOKEN" })).toBe("registry: bearer.auth.credentials.source STATIC_TOKEN needs bearer.auth.token");
    expect(failure({ ...url, "bearer.auth.logical.cluster": "lsrc-1" })).toBe(
      "registry: bearer.auth.logical.cluster and bearer.auth.identity.pool.id go with bearer.auth.token, which is not set",
    );
    expect(failure({ ...url, "bearer.auth.token": "t", headers: { authorization: "Basic x" } })).toBe(
      "registry: headers: Authorization is set, and so are credentials (basic.auth.* or bearer.auth.token): keep one of them",
    );
    expect(failure({ ...url, headers: { Accept: "text/html" } })).toBe("registry: headers: Accept is set by the client itself");
  });

  it("refuses timeouts and retries that are not whole, or out of range", () => {
    const url = { "schema.registry.url": URL_ };
    expect(failure({ ...url, requestTimeoutMs: 0 })).toBe('registry: option "requestTimeoutMs": requestTimeoutMs must be at least 1 (got 0)');
    expect(failure({ ...url, maxRetries: -1 })).toBe('registry: option "maxRetries": maxRetries must be 0 (one attempt) or more (got -1)');
    expect(failure({ ...url, retryBackoffMs: "soon" })).toBe('registry: option "retryBackoffMs": retryBackoffMs must be a number of milliseconds (got "soon")');
    expect(failure({ ...url, retryBackoffMs: 1.5 })).toBe('registry: option "retryBackoffMs": retryBackoffMs must be a whole number of milliseconds (got 1.5)');
  });
});
